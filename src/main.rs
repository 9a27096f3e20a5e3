fn main() {
    for f in std::env::args().skip(1) {
        let t = std::fs::read_to_string(&f).unwrap();
        match hindsight::syntax::parse(&t) {
            Ok(s) => println!("ok {f}: {} defs {} nodes", s.defs.len(), s.arena.len()),
            Err(d) => print!("{}", d.render(&f, &t)),
        }
    }
}
