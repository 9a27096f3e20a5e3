//! Issue 38 end to end: aggregations, arithmetic and `LET` in MFOTL and QTL,
//! run by the binary, with the exact time points and tuples. The MFOTL
//! expectations are MonPoly 1.4's own output on the same formulas and log
//! (`monpoly -sig t.sig -formula f.mfotl -log t.log`), written down here.

mod common;
use common::{bin, scratch_file, stderr, stdout, violation_events};

const SIG: &str = "p(x:int, y:string)\nq(f:float, y:string)\nr(s:string)\n";

/// Groups `a`, `b`, `c`; an empty window at `@20`; ints at the edge of 64
/// bits at `@21`.
const LOG: &str = "@0 p(1,a) p(2,a) p(3,b)
@1 q(2.5,a) q(3.5,a) q(1.0,b) p(4,a)
@2 p(1,a)
@5 p(6,b) q(0.5,b)
@20 r(z)
@21 p(9223372036854775807,c) p(9223372036854775806,c)
";

/// The satisfaction lines of `formula` on [`LOG`], and the exit status.
fn satisfactions(formula: &str) -> (Vec<String>, Option<i32>) {
    // The tests run at once: a directory per formula.
    static CASE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = CASE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = format!("aggregation/{k}");
    let f = scratch_file(&dir, "f.mfotl", formula);
    let s = scratch_file(&dir, "t.sig", SIG);
    let l = scratch_file(&dir, "t.log", LOG);
    let o = bin()
        .arg("run")
        .arg(&f)
        .arg("--sig")
        .arg(&s)
        .arg(&l)
        .output()
        .expect("runs");
    let lines = stdout(&o)
        .lines()
        .filter(|l| l.starts_with('@'))
        .map(str::to_string)
        .collect();
    (lines, o.status.code())
}

fn assert_lines(formula: &str, want: &[&str]) {
    let (got, code) = satisfactions(formula);
    assert_eq!(got, want, "{formula}");
    let status = if want.is_empty() { 0 } else { 1 };
    assert_eq!(code, Some(status), "{formula}");
}

#[test]
fn count_with_and_without_groups_over_a_window_that_empties() {
    assert_lines(
        "c <- CNT x; y ONCE[0,3] p(x,y)",
        &[
            "@0 (time point 0): (1,\"b\") (2,\"a\")",
            "@1 (time point 1): (1,\"b\") (3,\"a\")",
            "@2 (time point 2): (1,\"b\") (3,\"a\")",
            "@5 (time point 3): (1,\"a\") (1,\"b\")",
            "@21 (time point 5): (2,\"c\")",
        ],
    );
    // Without groups, the empty window at @20 counts 0.
    assert_lines(
        "c <- CNT x ONCE[0,3] p(x,y)",
        &[
            "@0 (time point 0): (3)",
            "@1 (time point 1): (4)",
            "@2 (time point 2): (4)",
            "@5 (time point 3): (2)",
            "@20 (time point 4): (0)",
            "@21 (time point 5): (2)",
        ],
    );
    // A condition on the count (the benchmark's shape).
    assert_lines(
        "(c <- CNT x; y ONCE[0,3] p(x,y)) AND c > 1",
        &[
            "@0 (time point 0): (2,\"a\")",
            "@1 (time point 1): (3,\"a\")",
            "@2 (time point 2): (3,\"a\")",
            "@21 (time point 5): (2,\"c\")",
        ],
    );
}

#[test]
fn sums_of_ints_are_exact_beyond_64_bits() {
    assert_lines(
        "s <- SUM x; y ONCE[0,3] p(x,y)",
        &[
            "@0 (time point 0): (3,\"a\") (3,\"b\")",
            "@1 (time point 1): (3,\"b\") (7,\"a\")",
            "@2 (time point 2): (3,\"b\") (7,\"a\")",
            "@5 (time point 3): (1,\"a\") (6,\"b\")",
            "@21 (time point 5): (18446744073709551613,\"c\")",
        ],
    );
    assert_lines(
        "s <- SUM x ONCE[0,30] p(x,y)",
        &[
            "@0 (time point 0): (6)",
            "@1 (time point 1): (10)",
            "@2 (time point 2): (10)",
            "@5 (time point 3): (16)",
            "@20 (time point 4): (16)",
            "@21 (time point 5): (18446744073709551629)",
        ],
    );
}

#[test]
fn min_max_of_floats_with_the_infinite_defaults() {
    assert_lines(
        "m <- MIN f; y ONCE[0,3] q(f,y)",
        &[
            "@1 (time point 1): (1,\"b\") (2.5,\"a\")",
            "@2 (time point 2): (1,\"b\") (2.5,\"a\")",
            "@5 (time point 3): (0.5,\"b\")",
        ],
    );
    assert_lines(
        "m <- MAX f ONCE[0,3] q(f,y)",
        &[
            "@0 (time point 0): (-inf)",
            "@1 (time point 1): (3.5)",
            "@2 (time point 2): (3.5)",
            "@5 (time point 3): (0.5)",
            "@20 (time point 4): (-inf)",
            "@21 (time point 5): (-inf)",
        ],
    );
}

#[test]
fn means_and_medians_are_floats() {
    assert_lines(
        "a <- AVG f; y ONCE q(f,y)",
        &[
            "@1 (time point 1): (1,\"b\") (3,\"a\")",
            "@2 (time point 2): (1,\"b\") (3,\"a\")",
            "@5 (time point 3): (0.75,\"b\") (3,\"a\")",
            "@20 (time point 4): (0.75,\"b\") (3,\"a\")",
            "@21 (time point 5): (0.75,\"b\") (3,\"a\")",
        ],
    );
    // The mean of ints is a float (printed with %g: 9.22337e+18).
    assert_lines(
        "a <- AVG x; y p(x,y)",
        &[
            "@0 (time point 0): (1.5,\"a\") (3,\"b\")",
            "@1 (time point 1): (4,\"a\")",
            "@2 (time point 2): (1,\"a\")",
            "@5 (time point 3): (6,\"b\")",
            "@21 (time point 5): (9.22337e+18,\"c\")",
        ],
    );
    // The median of an even number of values is the mean of the two
    // middle ones.
    assert_lines(
        "m <- MED x; y ONCE[0,2] p(x,y)",
        &[
            "@0 (time point 0): (1.5,\"a\") (3,\"b\")",
            "@1 (time point 1): (2,\"a\") (3,\"b\")",
            "@2 (time point 2): (2,\"a\") (3,\"b\")",
            "@5 (time point 3): (6,\"b\")",
            "@21 (time point 5): (9.22337e+18,\"c\")",
        ],
    );
    assert_lines(
        "m <- MED f ONCE q(f,y)",
        &[
            "@0 (time point 0): (0)",
            "@1 (time point 1): (2.5)",
            "@2 (time point 2): (2.5)",
            "@5 (time point 3): (1.75)",
            "@20 (time point 4): (1.75)",
            "@21 (time point 5): (1.75)",
        ],
    );
}

#[test]
fn arithmetic_on_ints_and_floats_and_let() {
    // Products of 64-bit ints, exactly.
    assert_lines(
        "p(x,y) AND z = x * x + 1",
        &[
            "@0 (time point 0): (1,\"a\",2) (2,\"a\",5) (3,\"b\",10)",
            "@1 (time point 1): (4,\"a\",17)",
            "@2 (time point 2): (1,\"a\",2)",
            "@5 (time point 3): (6,\"b\",37)",
            "@21 (time point 5): (9223372036854775806,\"c\",85070591730234615828950163710522949637) (9223372036854775807,\"c\",85070591730234615847396907784232501250)",
        ],
    );
    assert_lines(
        "q(f,y) AND g = f / 3.0 - 1.0",
        &[
            "@1 (time point 1): (1,\"b\",-0.666667) (2.5,\"a\",-0.166667) (3.5,\"a\",0.166667)",
            "@5 (time point 3): (0.5,\"b\",-0.833333)",
        ],
    );
    assert_lines(
        "LET two(a, b) = p(a, b) AND a MOD 2 = 0 IN two(x, y) AND y = \"a\"",
        &[
            "@0 (time point 0): (2,\"a\")",
            "@1 (time point 1): (4,\"a\")",
        ],
    );
    // A plain equality binds a variable, as in MonPoly.
    assert_lines(
        "p(x,y) AND z = x AND x > 3",
        &[
            "@1 (time point 1): (4,\"a\",4)",
            "@5 (time point 3): (6,\"b\",6)",
            "@21 (time point 5): (9223372036854775806,\"c\",9223372036854775806) (9223372036854775807,\"c\",9223372036854775807)",
        ],
    );
    assert_lines(
        "EXISTS x . p(x,y) AND x + 1 > 3",
        &[
            "@0 (time point 0): (\"b\")",
            "@1 (time point 1): (\"a\")",
            "@5 (time point 3): (\"b\")",
            "@21 (time point 5): (\"c\")",
        ],
    );
}

#[test]
fn aggregations_over_future_operators() {
    assert_lines(
        "c <- CNT x; y EVENTUALLY[0,3] p(x,y)",
        &[
            "@0 (time point 0): (1,\"b\") (3,\"a\")",
            "@1 (time point 1): (2,\"a\")",
            "@2 (time point 2): (1,\"a\") (1,\"b\")",
            "@5 (time point 3): (1,\"b\")",
            "@20 (time point 4): (2,\"c\")",
            "@21 (time point 5): (2,\"c\")",
        ],
    );
}

#[test]
fn unsafe_arithmetic_and_aggregation_are_errors_before_the_trace() {
    let dir = "aggregation-errors";
    let spec = scratch_file(
        dir,
        "unsafe.qtl",
        "prop p : Forall x . Forall y . x + 1 = y -> ok(y)\n",
    );
    let o = bin().arg("check").arg(&spec).output().expect("runs");
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("unsafe.qtl:1:32: error: the comparison `x + 1 = y` computes with `x`, `y`, which nothing binds to finitely many values here"),
        "{err}"
    );
    let spec = scratch_file(
        dir,
        "agg.qtl",
        "prop p : Forall c . (c <- CNT x . !seen(x)) -> c < 3\n",
    );
    let o = bin().arg("check").arg(&spec).output().expect("runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("agg.qtl:1:41: error: the operand of `c <- CNT x` does not bind `x` to finitely many values"),
        "{}",
        stderr(&o)
    );
    let spec = scratch_file(
        dir,
        "hide.qtl",
        "prop p : Forall x . Forall c . (c <- CNT x . P q(x)) -> c < 3\n",
    );
    let o = bin().arg("check").arg(&spec).output().expect("runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("error: the variable `x` of this aggregation hides the outer variable `x`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn qtl_aggregations_arithmetic_and_let_give_exact_violations() {
    let dir = "aggregation-qtl";
    let spec = scratch_file(
        dir,
        "s.qtl",
        "prop fewAddresses : Forall u . Forall c . (c <- CNT ip; u . P[<=10] fail(u, ip)) -> c <= 2
prop limit : Forall a . Forall s . (s <- SUM m; a . P[<=30] withdraw(a, m, t)) -> s <= 1000
prop fee : Forall a . Forall f . Forall t . withdraw(a, f, t) -> f * 100 >= 1000 | f % 2 = 0
prop big : LET large(a, m) = (Exists t . withdraw(a, m, t)) & m > 500 IN
  Forall a . Forall m . large(a, m) -> @ P approve(a)
",
    );
    let trace = scratch_file(
        dir,
        "t.timed.csv",
        "fail,ann,ip1,0
fail,ann,ip2,1
approve,acc1,2
withdraw,acc1,500,t1,3
fail,ann,ip3,4
withdraw,acc1,600,t2,10
withdraw,acc2,900,t3,12
fail,ann,ip4,15
withdraw,acc2,3,t4,16
",
    );
    let o = bin()
        .arg("run")
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(" violated at "))
        .collect();
    assert_eq!(
        lines,
        [
            "property fewAddresses violated at event 5 at time 4: fail(ann, ip3)",
            "property fewAddresses violated at event 6 at time 10: withdraw(acc1, 600, t2)",
            "property limit violated at event 6 at time 10: withdraw(acc1, 600, t2)",
            "property limit violated at event 7 at time 12: withdraw(acc2, 900, t3)",
            "property big violated at event 7 at time 12: withdraw(acc2, 900, t3)",
            "property limit violated at event 8 at time 15: fail(ann, ip4)",
            "property limit violated at event 9 at time 16: withdraw(acc2, 3, t4)",
            "property fee violated at event 9 at time 16: withdraw(acc2, 3, t4)",
        ],
        "{out}"
    );
    assert_eq!(violation_events(&o), [5, 6, 6, 7, 7, 8, 9, 9]);
}

#[test]
fn division_by_zero_stops_the_run_and_keeps_the_verdicts_before() {
    let dir = "aggregation-div";
    let spec = scratch_file(
        dir,
        "div.qtl",
        "prop rate : Forall a . Forall b . ratio(a, b) -> a / b < 10\n",
    );
    let trace = scratch_file(
        dir,
        "div.csv",
        "ratio,50,10\nratio,99,3\nratio,5,0\nratio,1,1\n",
    );
    let o = bin()
        .arg("run")
        .arg(&spec)
        .arg(&trace)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(violation_events(&o), [2]);
    assert!(
        stderr(&o).contains(
            "div.csv:line 3: property `rate` cannot be evaluated: `!(a / b < 10)`: division by zero"
        ),
        "{}",
        stderr(&o)
    );
}
