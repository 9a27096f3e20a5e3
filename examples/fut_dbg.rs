use hindsight::runtime::Monitor;
fn main() {
    let mut m = Monitor::from_source("prop answered : Forall r . request(r) -> F[<=3] response(r)", Default::default()).unwrap();
    m.set_step_clock(true);
    for (n, a) in [("request","a"),("request","b"),("response","a"),("ping",""),("ping",""),("response","b"),("request","c"),("ping","")] {
        let args: Vec<&[u8]> = if a.is_empty() { vec![] } else { vec![a.as_bytes()] };
        m.step(n.as_bytes(), &args, 0).unwrap();
        let d = m.take_decided();
        println!("after {n}: decided {:?} undecided {}", d.iter().map(|d| (d.step, d.violations.len())).collect::<Vec<_>>(), m.undecided());
    }
    println!("finish: {:?}", m.finish_trace());
    println!("{:?}", m.take_decided().iter().map(|d| d.step).collect::<Vec<_>>());
}
