//! End-to-end tests of the example specifications in `specs/`.
//!
//! Every expected verdict below was derived by hand from the semantics in
//! docs/LANGUAGE.md (not by running the tool); the comments next to the
//! expectations give the reasoning, event by event, for the lines that matter.
//! Events are numbered from 1, one per trace line.

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::Value;

fn specs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("specs")
}

fn example(name: &str) -> PathBuf {
    let path = specs_dir().join(name);
    assert!(path.is_file(), "missing example file {}", path.display());
    path
}

/// A scratch file under cargo's per-target temporary directory.
fn scratch(name: &str, contents: &str) -> PathBuf {
    common::scratch_file("examples", name, contents)
}

fn hindsight(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = common::bin();
    cmd.args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
    let mut child = cmd.spawn().expect("cannot start hindsight");
    if let Some(input) = stdin {
        // Write from another thread so that a large output cannot deadlock us.
        let mut pipe = child.stdin.take().unwrap();
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    child.wait_with_output().expect("hindsight did not finish")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The parsed result of `hindsight run ... --report json`.
#[derive(Debug)]
struct JsonRun {
    code: i32,
    /// (property, event) of every violation line, in output order.
    violations: Vec<(String, u64)>,
    summary: Option<Value>,
    stderr: String,
}

impl JsonRun {
    fn sorted(&self) -> Vec<(String, u64)> {
        let mut v = self.violations.clone();
        v.sort();
        v
    }

    /// Violating events of one property, in output order.
    fn events_of(&self, property: &str) -> Vec<u64> {
        self.violations
            .iter()
            .filter(|(p, _)| p == property)
            .map(|(_, e)| *e)
            .collect()
    }
}

fn parse_json(out: &Output) -> JsonRun {
    let stdout = text(&out.stdout);
    let mut violations = Vec::new();
    let mut summary = None;
    for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not a JSON line ({e}): {line:?}\nstdout:\n{stdout}"));
        match v["kind"].as_str() {
            Some("violation") => {
                let property = v["property"].as_str().expect("property").to_string();
                let event = v["event"].as_u64().expect("event number");
                assert!(v["name"].is_string(), "violation without name: {line}");
                assert!(v["args"].is_array(), "violation without args: {line}");
                violations.push((property, event));
            }
            Some("summary") => {
                assert!(summary.is_none(), "two summary lines:\n{stdout}");
                summary = Some(v);
            }
            _ => {}
        }
    }
    JsonRun {
        code: out.status.code().expect("killed by a signal"),
        violations,
        summary,
        stderr: text(&out.stderr),
    }
}

fn run_json(spec: &Path, trace: &Path, extra: &[&str]) -> JsonRun {
    let mut args = vec![
        "run",
        spec.to_str().unwrap(),
        trace.to_str().unwrap(),
        "--report",
        "json",
    ];
    args.extend_from_slice(extra);
    parse_json(&hindsight(&args, None))
}

/// Runs `spec` on `trace` and asserts exactly the expected (property, event)
/// pairs (no more, no fewer, no duplicates), the exit status and the status
/// in the summary.
fn assert_verdicts(spec: &str, trace: &str, expected: &[(&str, &[u64])]) -> JsonRun {
    let run = run_json(&example(spec), &example(trace), &[]);
    let mut want: Vec<(String, u64)> = expected
        .iter()
        .flat_map(|(p, evs)| evs.iter().map(move |e| (p.to_string(), *e)))
        .collect();
    want.sort();
    assert_eq!(
        run.sorted(),
        want,
        "{spec} on {trace}: violations differ\nstderr: {}",
        run.stderr
    );
    let violated = !want.is_empty();
    assert_eq!(
        run.code,
        i32::from(violated),
        "{spec} on {trace}: exit status\nstderr: {}",
        run.stderr
    );
    let summary = run.summary.as_ref().expect("no summary line");
    assert_eq!(
        summary["status"].as_str(),
        Some(if violated { "Violated" } else { "Satisfied" }),
        "{spec} on {trace}: summary {summary}"
    );
    // Verdicts are printed as they are found: event numbers never go back.
    assert!(
        run.violations.windows(2).all(|w| w[0].1 <= w[1].1),
        "{spec} on {trace}: violations out of order: {:?}",
        run.violations
    );
    run
}

// ---------------------------------------------------------------------------
// 1. File access
// ---------------------------------------------------------------------------

#[test]
fn file_access() {
    // accessWhileOpen: (read|write|close)(f) -> @ [open(f), close(f))
    // noReopen:        open(f) -> !@ [open(f), close(f))
    //  1 read,cfg   `@` is false at event 1                  -> accessWhileOpen
    //  2 open,cfg   cfg not open at 1                        -> ok
    //  3 read,cfg   open at 2, no close since                -> ok
    //  4 write,cfg  same                                     -> ok
    //  5 read,db    db never opened                          -> accessWhileOpen
    //  6 open,db    db not open before                       -> ok
    //  7 close,cfg  at 6 cfg open since 2                    -> ok
    //  8 write,cfg  at 7 close(cfg) holds, interval false    -> accessWhileOpen
    //  9 open,db    at 8 db open since 6                     -> noReopen
    // 10 close,db   at 9 open(db) holds                      -> ok
    // 11 close,db   at 10 close(db) holds                    -> accessWhileOpen
    // 12 open,cfg   cfg closed at 7, not open at 11          -> ok
    // 13 read,cfg   open at 12                               -> ok
    assert_verdicts(
        "file_access.qtl",
        "file_access.csv",
        &[("accessWhileOpen", &[1, 5, 8, 11]), ("noReopen", &[9])],
    );
    // Two files interleaved, each opened before use and reopened only after
    // its close (events 7 and 11 reopen cfg/db closed at 6 and 9).
    assert_verdicts("file_access.qtl", "file_access-ok.csv", &[]);
}

// ---------------------------------------------------------------------------
// 2. Locks
// ---------------------------------------------------------------------------

#[test]
fn locks() {
    // releaseOnlyHeld: release(t,l) -> @ [acquire(t,l), release(t,l))
    // exclusive: no l with two threads t < u both inside their interval
    // [acquire(_,l), release(_,l)) at the current event (state invariant).
    // Held after each event:
    //  1 acquire,7,door     {7:door}                         -> ok
    //  2 acquire,12,vault   {7:door, 12:vault}               -> ok
    //  3 release,7,door     7 held door at 2; {12:vault}     -> ok
    //  4 acquire,3,door     {12:vault, 3:door}               -> ok
    //  5 release,12,door    12 never acquired door           -> releaseOnlyHeld
    //  6 acquire,12,door    door held by 3 and 12            -> exclusive
    //  7 release,7,vault    7 never held vault               -> releaseOnlyHeld
    //                       door still held by 3 and 12      -> exclusive
    //  8 release,3,door     3 held door since 4; only 12 now -> ok
    //  9 acquire,7,vault    vault held by 12 (since 2) and 7 -> exclusive
    // 10 release,12,vault   12 held vault; 7 alone now       -> ok
    // 11 release,7,vault    7 held vault since 9             -> ok
    // 12 release,7,vault    released at 11 already           -> releaseOnlyHeld
    assert_verdicts(
        "locks.qtl",
        "locks.csv",
        &[("releaseOnlyHeld", &[5, 7, 12]), ("exclusive", &[6, 7, 9])],
    );
    // Each lock is acquired only after its previous holder released it, and
    // every release is by the current holder.
    assert_verdicts("locks.qtl", "locks-ok.csv", &[]);
}

// ---------------------------------------------------------------------------
// 3. Auction
// ---------------------------------------------------------------------------

#[test]
fn auction() {
    // increasing: bid(i,a) -> every earlier bid b on i has b < a (numeric)
    // noBidAfterSale: bid(i,a) -> !@P sold(i)
    // reserveMet: sold(i) -> some earlier bid a and reserve r on i with a >= r
    //  1 reserve,lamp,600
    //  2 bid,lamp,650    first bid on lamp                      -> ok
    //  3 bid,lamp,700    650 < 700                              -> ok
    //  4 bid,vase,90     first bid on vase                      -> ok
    //  5 bid,lamp,1000   650, 700 < 1000 as integers            -> ok
    //  6 bid,lamp,700    1000 < 700 and 700 < 700 are false     -> increasing
    //  7 bid,vase,90     90 < 90 is false                       -> increasing
    //  8 reserve,vase,100
    //  9 sold,lamp       bid 650 >= reserve 600                 -> ok
    // 10 bid,lamp,1200   lamp sold at 9 (increase is fine)      -> noBidAfterSale
    // 11 sold,vase       bids 90, 90 < reserve 100              -> reserveMet
    // 12 bid,clock,5     first bid on clock                     -> ok
    // 13 bid,vase,95     vase sold at 11 (90 < 95 is fine)      -> noBidAfterSale
    // 14 sold,clock      clock has no reserve at all            -> reserveMet
    assert_verdicts(
        "auction.qtl",
        "auction.csv",
        &[
            ("increasing", &[6, 7]),
            ("noBidAfterSale", &[10, 13]),
            ("reserveMet", &[11, 14]),
        ],
    );
    // lamp: 95, 700, 1000, 10000 and vase: 95, 100 increase numerically
    // (not as strings: "700" > "1000" > "10000" > "95"); vase is sold at a
    // bid equal to its reserve (100 >= 100), lamp above it.
    assert_verdicts("auction.qtl", "auction-ok.csv", &[]);
}

// ---------------------------------------------------------------------------
// 4. Iterators
// ---------------------------------------------------------------------------

#[test]
fn iterator() {
    // nextAfterHasNext: next(i) -> @ hasNext(i, "true")
    // unsafeMapIterator: next(i) -> !P (update(m) & @P iterator(m, i))
    //  1 iterator,users,it1
    //  2 hasNext,it1,true
    //  3 next,it1          previous event hasNext(it1,true)      -> ok
    //  4 next,it1          previous event is next                -> nextAfterHasNext
    //  5 iterator,orders,it2
    //  6 hasNext,it2,false
    //  7 next,it2          hasNext returned "false"              -> nextAfterHasNext
    //  8 hasNext,it1,true
    //  9 update,users      it1 (over users, created at 1) invalid
    // 10 next,it1          previous event is update              -> nextAfterHasNext
    //                      and it1 invalidated at 9              -> unsafeMapIterator
    // 11 hasNext,it2,true
    // 12 next,it2          it2 is over orders, never updated     -> ok
    // 13 hasNext,it1,true
    // 14 next,it1          hasNext fine, but it1 still invalid   -> unsafeMapIterator
    // 15 iterator,users,it3  created after the update
    // 16 hasNext,it3,true
    // 17 next,it3          @P iterator(users,it3) false at 9     -> ok
    assert_verdicts(
        "iterator.qtl",
        "iterator.csv",
        &[
            ("nextAfterHasNext", &[4, 7, 10]),
            ("unsafeMapIterator", &[10, 14]),
        ],
    );
    // The update of users at 10 invalidates it1, which is not used after it;
    // it3 is created after the update, it2 is over another map.
    assert_verdicts("iterator.qtl", "iterator-ok.csv", &[]);
}

// ---------------------------------------------------------------------------
// 5. Access control
// ---------------------------------------------------------------------------

#[test]
fn access_control() {
    // accessAllowed: access(u,r) -> [login(u),logout(u)) & [grant(u,r),revoke(u,r))
    // auditComplete: audit(a) -> [login(a),logout(a))
    //                & forall res . [grant(a,res), revoke(a,res))
    // where `forall res` ranges over resources seen in grant/revoke so far.
    //  1 login,alice
    //  2 grant,alice,wiki
    //  3 access,alice,wiki     logged in, granted               -> ok
    //  4 access,alice,payroll  no grant for payroll             -> accessAllowed
    //  5 grant,bob,payroll
    //  6 access,bob,payroll    bob not logged in                -> accessAllowed
    //  7 login,bob
    //  8 access,bob,payroll    logged in, granted               -> ok
    //  9 revoke,bob,payroll
    // 10 access,bob,payroll    grant revoked at 9               -> accessAllowed
    // 11 logout,alice
    // 12 access,alice,wiki     logged out at 11                 -> accessAllowed
    // 13 login,carol
    // 14 grant,carol,wiki
    // 15 audit,carol           seen {wiki,payroll}, no payroll  -> auditComplete
    // 16 grant,carol,payroll
    // 17 audit,carol           holds wiki and payroll           -> ok
    // 18 grant,alice,backup    backup becomes a seen resource
    // 19 audit,carol           carol lacks backup               -> auditComplete
    // 20 audit,bob             logged in but holds nothing      -> auditComplete
    // 21 login,alice
    // 22 access,alice,wiki     logged in again, grant from 2    -> ok
    assert_verdicts(
        "access.qtl",
        "access.csv",
        &[
            ("accessAllowed", &[4, 6, 10, 12]),
            ("auditComplete", &[15, 19, 20]),
        ],
    );
    // dave audits at 8 and 13 holding both seen resources (wiki, payroll);
    // logout/login at 10-11 keeps his grants.
    assert_verdicts("access.qtl", "access-ok.csv", &[]);
}

// ---------------------------------------------------------------------------
// 6. The paper's rule examples
// ---------------------------------------------------------------------------

#[test]
fn telemetry() {
    // Channels start closed, toggle(x) flips x, telem(x) on closed x fails.
    // telemetry1 and telemetry2 agree because no channel is toggled at event 1.
    //  1 telem,cam     cam closed                          -> both
    //  2 toggle,cam    cam open
    //  3 telem,cam     open                                -> ok
    //  4 telem,gyro    gyro closed                         -> both
    //  5 toggle,gyro   gyro open
    //  6 toggle,cam    cam closed
    //  7 telem,gyro    open                                -> ok
    //  8 telem,cam     closed                              -> both
    //  9 toggle,cam    open
    // 10 toggle,cam    closed
    // 11 telem,cam     closed                              -> both
    // 12 toggle,sun    sun (first seen here) open
    // 13 telem,sun                                         -> ok
    // 14 telem,gyro    still open since 5                  -> ok
    assert_verdicts(
        "telemetry.qtl",
        "telemetry.csv",
        &[
            ("telemetry1", &[1, 4, 8, 11]),
            ("telemetry2", &[1, 4, 8, 11]),
        ],
    );
    // Event 1 is `boot` (no toggle at event 1); every telem is sent on a
    // channel toggled an odd number of times before it.
    assert_verdicts("telemetry.qtl", "telemetry-ok.csv", &[]);
}

#[test]
fn telemetry1_and_telemetry2_agree() {
    let spec = example("telemetry.qtl");
    let extra = scratch(
        "telemetry-agree.csv",
        // No toggle at event 1; several channels, repeated toggles.
        "telem,a\ntoggle,a\ntoggle,b\ntelem,a\ntelem,b\ntoggle,a\ntelem,a\n\
         telem,c\ntoggle,b\ntelem,b\ntoggle,c\ntoggle,a\ntelem,c\ntelem,a\n",
    );
    let traces = [
        example("telemetry.csv"),
        example("telemetry-ok.csv"),
        extra.clone(),
    ];
    for trace in &traces {
        let run = run_json(&spec, trace, &[]);
        assert_eq!(
            run.events_of("telemetry1"),
            run.events_of("telemetry2"),
            "telemetry1 and telemetry2 disagree on {}",
            trace.display()
        );
    }
    // Hand-derived for the extra trace: a closed at 1 (telem -> violation),
    // open 2-5 (telem at 4 fine), closed 6-11 (telem at 7 -> violation),
    // open from 12 (telem at 14 fine); b open 3-8 (telem at 5 fine), closed
    // from 9 (telem at 10 -> violation); c closed at 8 (violation), open
    // from 11 (telem at 13 fine).
    let run = run_json(&spec, &extra, &[]);
    assert_eq!(run.events_of("telemetry1"), vec![1, 7, 8, 10]);
    assert_eq!(run.code, 1);
}

#[test]
fn telemetry_rules_differ_when_toggled_at_the_first_event() {
    // A corner of the paper's definitions, derived from the rule bodies:
    // with toggle(cam) at event 1, telemetry1 gives closed = (true <-> false)
    // = false, so cam is open and toggles back to closed at 3; telemetry2
    // gives closed = false (the first disjunct needs !toggle) and open = false
    // (`@` is false at event 1), and neither can ever become true again.
    let trace = scratch(
        "telemetry-first-toggle.csv",
        "toggle,cam\ntelem,cam\ntoggle,cam\ntelem,cam\n",
    );
    let run = run_json(&example("telemetry.qtl"), &trace, &[]);
    assert_eq!(run.events_of("telemetry1"), vec![4]);
    assert_eq!(run.events_of("telemetry2"), Vec::<u64>::new());
    assert_eq!(run.code, 1);
}

#[test]
fn spawning() {
    // report(y,x,d) -> spawned(x,y), spawned the incremental transitive closure.
    //  1 spawn,root,a       spawned(root,a)
    //  2 spawn,a,b          spawned(a,b), spawned(root,b) via z=a
    //  3 spawn,b,c          spawned(b,c), (a,c), (root,c) via z=b
    //  4 report,c,root,42   chain root-a-b-c of length 3     -> ok
    //  5 report,b,a,7       direct child                     -> ok
    //  6 report,root,c,1    c did not spawn root             -> violation
    //  7 spawn,c,d          (c,d), (b,d), (a,d), (root,d)
    //  8 report,d,root,99   chain of length 4                -> ok
    //  9 report,e,root,3    e never spawned                  -> violation
    // 10 spawn,other,e      spawned(other,e) only
    // 11 report,e,root,4    root is no ancestor of e         -> violation
    // 12 report,e,other,4                                    -> ok
    // 13 report,d,b,5       (b,d) from 7                     -> ok
    // 14 report,a,a,0       spawned(a,a) never holds         -> violation
    // 15 spawn,p,q          spawned(p,q); o has no child yet
    // 16 spawn,o,p          spawned(o,p); spawn(p,q) was before, so no (o,q)
    // 17 report,q,o,8       spawned(o,q) false               -> violation
    // 18 report,p,o,8                                        -> ok
    assert_verdicts(
        "spawning.qtl",
        "spawning.csv",
        &[("spawning", &[6, 9, 11, 14, 17])],
    );
    // init-shell-make-cc-as is a chain of length 4; as reports to each of its
    // four ancestors, ls and cc to theirs.
    assert_verdicts("spawning.qtl", "spawning-ok.csv", &[]);
}

// ---------------------------------------------------------------------------
// 7. Wolper's propositional example
// ---------------------------------------------------------------------------

#[test]
fn wolper_even() {
    // q := @!q is false at 1 and true exactly at the even events; q -> p.
    //  1 r  odd        -> ok
    //  2 p  even, p    -> ok
    //  3 p  odd        -> ok
    //  4 r  even, no p -> violation
    //  5 r  odd        -> ok
    //  6 r  even, no p -> violation
    //  7 p, 8 p        -> ok
    //  9 s  odd        -> ok
    // 10 s  even, no p -> violation
    // 11 p  odd        -> ok
    assert_verdicts("even.qtl", "even.csv", &[("even", &[4, 6, 10])]);
    // p at 2, 4, 6, 8; other events only at odd positions.
    assert_verdicts("even.qtl", "even-ok.csv", &[]);
}

// ---------------------------------------------------------------------------
// 8. Timed: deadlines
// ---------------------------------------------------------------------------

#[test]
fn deadline_timed() {
    // deadline: complete(m) -> P[<=3] dispatch(m)
    // cooldown: dispatch(m) -> !(true Z[<=2] complete(m))
    // event: line (time)
    //  1 dispatch,c1 (0)
    //  2 dispatch,c2 (1)
    //  3 complete,c1 (3)   3 - 0 = 3 <= 3                      -> ok
    //  4 complete,c2 (5)   5 - 1 = 4 > 3                       -> deadline
    //  5 dispatch,c3 (5)   c3 never completed                  -> ok
    //  6 complete,c3 (5)   same time as its dispatch, 0        -> ok
    //  7 dispatch,c1 (6)   c1 completed at time 3: 3 > 2       -> ok
    //  8 complete,c1 (6)   dispatched at 6                     -> ok
    //  9 dispatch,c1 (8)   c1 completed at time 6: 2 <= 2      -> cooldown
    // 10 tick (9)          unrelated event
    // 11 complete,c4 (9)   c4 never dispatched                 -> deadline
    // 12 dispatch,c3 (9)   c3 completed at time 5: 4 > 2       -> ok
    // 13 complete,c3 (12)  dispatched at time 9: 3 <= 3        -> ok
    // 14 complete,c1 (12)  last dispatch at time 8: 4 > 3      -> deadline
    // 15 complete,c2 (12)  dispatched at time 1                -> deadline
    // (`.timed.` in the file name switches on time stamps.)
    assert_verdicts(
        "deadline.qtl",
        "deadline.timed.csv",
        &[("deadline", &[4, 11, 14, 15]), ("cooldown", &[9])],
    );
    // Gaps of exactly 3 for deadline (5, 8, 9) and of exactly 3 > 2 for
    // cooldown (7, 10); several events share a time stamp.
    assert_verdicts("deadline.qtl", "deadline-ok.timed.csv", &[]);
}

#[test]
fn responses_with_future_operators() {
    // answered: request(r) -> F[<=5] response(r)
    // quiet: cancel(r) -> G(0,10] !response(r)
    //  1 request,1 (0)    response(1) at 7: 7 > 5                 -> answered
    //  2 request,2 (1)    response(2) at 3                        -> ok
    //  4 cancel,3 (4)     response(3) at 9, in (4,14]             -> quiet
    //  7 request,4 (20)   response(4) at 24                       -> ok
    //  9 cancel,5 (25)    response(5) at 31, in (25,35]           -> quiet
    // 10 request,6 (30)   the trace ends at 31, before 35         -> undecided
    // 11 response,5 (31)  no request nor cancel: decided at once
    let run = assert_verdicts(
        "responses.qtl",
        "responses.timed.csv",
        &[("answered", &[1]), ("quiet", &[4, 9])],
    );
    let summary = run.summary.as_ref().expect("summary");
    assert_eq!(summary["undecided"].as_u64(), Some(1), "{summary}");
    // cancel(2) at 6: the next event at 17 is past 16; request(3) at 17 is
    // answered at 18, known when the trace ends.
    let run = assert_verdicts("responses.qtl", "responses-ok.timed.csv", &[]);
    let summary = run.summary.as_ref().expect("summary");
    assert_eq!(summary["undecided"].as_u64(), Some(0), "{summary}");
}

// ---------------------------------------------------------------------------
// 9. Macros
// ---------------------------------------------------------------------------

#[test]
fn macros_in_properties_and_rules() {
    // live(s) = [connect(s), disconnect(s)); sentOn(s,m) = live(s) & send(s,m)
    // sendWhileLive: send(s,m) -> live(s)
    // ackOnlyPending: ack(s,m) -> @pending(s,m),
    //   pending(s,m) := sentOn(s,m) | (@pending(s,m) & !ack(s,m) & !disconnect(s))
    //  1 connect,s1
    //  2 send,s1,1        s1 live; pending(s1,1)
    //  3 send,s2,1        s2 not live                        -> sendWhileLive
    //                     (so (s2,1) does not become pending)
    //  4 ack,s1,1         pending(s1,1) at 3; no longer after -> ok
    //  5 ack,s1,1         acked at 4 already                 -> ackOnlyPending
    //  6 ack,s2,1         (s2,1) never pending               -> ackOnlyPending
    //  7 connect,s2
    //  8 send,s2,2        pending(s2,2)
    //  9 send,s1,3        pending(s1,3)
    // 10 disconnect,s1    ends pending(s1,3)
    // 11 ack,s1,3         not pending at 10                  -> ackOnlyPending
    // 12 ack,s2,2         pending since 8                    -> ok
    // 13 send,s1,4        s1 disconnected at 10              -> sendWhileLive
    assert_verdicts(
        "sessions.qtl",
        "sessions.csv",
        &[("sendWhileLive", &[3, 13]), ("ackOnlyPending", &[5, 6, 11])],
    );
    // Messages acked in any order while their session is live; s2 reconnects
    // at 10 and message 1 is sent and acked again on it.
    assert_verdicts("sessions.qtl", "sessions-ok.csv", &[]);
}

// ---------------------------------------------------------------------------
// Interface behaviour
// ---------------------------------------------------------------------------

/// The example specifications (the paper's rule examples are telemetry and
/// spawning).
const EXAMPLES: [&str; 10] = [
    "file_access",
    "locks",
    "auction",
    "iterator",
    "access",
    "telemetry",
    "spawning",
    "even",
    "deadline",
    "sessions",
];

#[test]
fn all_example_specs_are_well_formed() {
    let mut count = 0;
    for entry in fs::read_dir(specs_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("qtl") {
            continue;
        }
        count += 1;
        let out = hindsight(&["check", path.to_str().unwrap()], None);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{} is not well-formed:\n{}",
            path.display(),
            text(&out.stderr)
        );
        // Every example comes with at least one trace next to it.
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let has_trace = fs::read_dir(specs_dir()).unwrap().any(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.ends_with(".csv") && name.starts_with(&stem)
        });
        assert!(has_trace, "{} has no trace", path.display());
    }
    assert!(count >= EXAMPLES.len(), "found only {count} specifications");
    for name in EXAMPLES {
        example(&format!("{name}.qtl"));
    }
}

#[test]
fn stdin_gives_the_same_result_as_a_file() {
    let cases: [(&str, &str, &[&str]); 3] = [
        ("access.qtl", "access.csv", &[]),
        ("spawning.qtl", "spawning-ok.csv", &[]),
        // Time stamps cannot be detected from a file name on stdin.
        ("deadline.qtl", "deadline.timed.csv", &["--timed"]),
    ];
    for (spec, trace, extra) in cases {
        let spec = example(spec);
        let trace = example(trace);
        let from_file = run_json(&spec, &trace, &[]);
        let mut args = vec!["run", spec.to_str().unwrap(), "--report", "json"];
        args.extend_from_slice(extra);
        let input = fs::read(&trace).unwrap();
        let from_stdin = parse_json(&hindsight(&args, Some(&input)));
        assert_eq!(
            from_stdin.violations,
            from_file.violations,
            "{}: stdin and file differ\nstderr: {}",
            trace.display(),
            from_stdin.stderr
        );
        assert_eq!(from_stdin.code, from_file.code, "{}", trace.display());
        let (a, b) = (from_file.summary.unwrap(), from_stdin.summary.unwrap());
        assert_eq!(a["events"], b["events"], "{}", trace.display());
        assert_eq!(a["status"], b["status"], "{}", trace.display());

        // The same holds for the text output, up to the timing line.
        let strip = |out: Output| -> Vec<String> {
            text(&out.stdout)
                .lines()
                .filter(|l| !l.starts_with("events processed"))
                .map(str::to_string)
                .collect()
        };
        let mut args = vec!["run", spec.to_str().unwrap()];
        args.extend_from_slice(extra);
        let text_stdin = strip(hindsight(&args, Some(&input)));
        let text_file = strip(hindsight(
            &["run", spec.to_str().unwrap(), trace.to_str().unwrap()],
            None,
        ));
        assert_eq!(text_stdin, text_file, "{}", trace.display());
    }
}

#[test]
fn quiet_prints_only_the_status_line() {
    let spec = example("locks.qtl");
    let out = hindsight(
        &[
            "run",
            spec.to_str().unwrap(),
            example("locks.csv").to_str().unwrap(),
            "--quiet",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout).trim_end(), "STATUS: Violated");

    let out = hindsight(
        &[
            "run",
            spec.to_str().unwrap(),
            example("locks-ok.csv").to_str().unwrap(),
            "--quiet",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout).trim_end(), "STATUS: Satisfied");
}

#[test]
fn stop_at_first_ends_the_run_at_the_first_violation() {
    // access.csv: the first violation is accessAllowed at event 4 (and no
    // other property is violated there); without the flag there are seven.
    let spec = example("access.qtl");
    let trace = example("access.csv");
    let all = run_json(&spec, &trace, &[]);
    assert_eq!(all.violations.len(), 7);

    let first = run_json(&spec, &trace, &["--stop-at-first"]);
    assert_eq!(first.violations, vec![("accessAllowed".to_string(), 4)]);
    assert_eq!(first.code, 1);
    let summary = first.summary.expect("no summary line");
    assert_eq!(summary["status"].as_str(), Some("Violated"));
    assert_eq!(summary["events"].as_u64(), Some(4), "summary: {summary}");

    let out = hindsight(
        &[
            "run",
            spec.to_str().unwrap(),
            trace.to_str().unwrap(),
            "--stop-at-first",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("violated at"))
        .collect();
    assert_eq!(
        lines,
        vec!["property accessAllowed violated at event 4: access(alice, payroll)"]
    );
    assert_eq!(stdout.lines().last(), Some("STATUS: Violated"));
}

#[test]
fn wrong_arity_in_the_trace_is_an_error_after_earlier_verdicts() {
    // file_access.qtl uses read(f) with one argument.
    //  1 open,cfg
    //  2 read,db          db never opened -> accessWhileOpen violated
    //  3 read,cfg,extra   two arguments   -> error on line 3
    //  4 read,x           would be a violation, but is never reached
    let trace = scratch(
        "file_access-bad-arity.csv",
        "open,cfg\nread,db\nread,cfg,extra\nread,x\n",
    );
    let spec = example("file_access.qtl");
    let run = run_json(&spec, &trace, &[]);
    assert_eq!(run.code, 2, "stderr: {}", run.stderr);
    assert_eq!(run.violations, vec![("accessWhileOpen".to_string(), 2)]);
    assert!(
        run.stderr.contains("line 3"),
        "stderr does not name line 3: {}",
        run.stderr
    );

    let out = hindsight(
        &["run", spec.to_str().unwrap(), trace.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("property accessWhileOpen violated at event 2: read(db)"),
        "stdout: {stdout}"
    );
    assert!(!stdout.contains("event 4"), "stdout: {stdout}");
    assert!(text(&out.stderr).contains("line 3"));
}

#[test]
fn rule_referring_to_itself_outside_previous_is_rejected() {
    // flip(x) := toggle(x) <-> !flip(x) has no `@`: not well-formed.
    let bad = scratch(
        "self-reference.qtl",
        "prop selfRef : Forall x . flip(x) -> !telem(x)\n  where flip(x) := toggle(x) <-> !flip(x)\n",
    );
    let out = hindsight(&["check", bad.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("flip"), "stderr: {stderr}");
    assert!(stderr.contains("self-reference.qtl"), "stderr: {stderr}");

    // `run` refuses it too, before reading any event.
    let trace = scratch("self-reference.csv", "toggle,a\ntelem,a\n");
    let out = hindsight(
        &["run", bad.to_str().unwrap(), trace.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out.stdout).contains("violated at"));

    // The same rule with the reference under `@` is fine.
    let good = scratch(
        "self-reference-ok.qtl",
        "prop selfRef : Forall x . flip(x) -> !telem(x)\n  where flip(x) := toggle(x) <-> @!flip(x)\n",
    );
    let out = hindsight(&["check", good.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// Every specification and trace shipped in `specs/` has its expected
/// verdicts asserted in this file (its name appears in a test above), or for
/// the MFOTL examples in `tests/mfotl.rs`.
#[test]
fn every_shipped_file_has_expected_verdicts() {
    let source = [include_str!("examples.rs"), include_str!("mfotl.rs")].concat();
    let mut missing = Vec::new();
    for entry in fs::read_dir(specs_dir()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let quoted = format!("\"{name}\"");
        let stem = name.strip_suffix(".qtl").map(|s| format!("\"{s}\""));
        let named = source.contains(&quoted) || stem.is_some_and(|s| source.contains(&s));
        if [".qtl", ".csv", ".mfotl"].iter().any(|x| name.ends_with(x)) && !named {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "no test in tests/examples.rs names these example files: {missing:?}"
    );
}
