use super::*;
use crate::syntax::{BinOp, Ident, Span, parse_formula};

fn formula(text: &str) -> (Arena, FormId) {
    parse_formula(text).expect("a formula")
}

fn event(arena: &mut Arena, name: &str) -> FormId {
    let name = Ident {
        name: name.to_string(),
        span: Span::default(),
    };
    let args = Vec::new();
    arena.push(Form::Call { name, args }, Span::default())
}

/// Records the hooks in order; counts the depth through the context.
struct Trace<'a> {
    arena: &'a Arena,
    log: Vec<String>,
}

impl Fold for Trace<'_> {
    type Node = FormId;
    type Ctx = usize;
    type Out = usize;
    fn enter(&mut self, id: FormId, depth: &usize) -> Step<FormId, usize, usize> {
        let form = self.arena.form(id);
        self.log
            .push(format!("enter {} at {depth}", self.arena.show(id)));
        match form {
            // An answer at once: nothing below, no `leave`.
            Form::Call { .. } => Step::Done(1),
            _ => Step::Into(Kids::of(form), depth + 1),
        }
    }
    fn leave(&mut self, id: FormId, depth: &usize, kids: [usize; 2]) -> usize {
        self.log.push(format!(
            "leave {} at {depth} with {kids:?}",
            self.arena.show(id)
        ));
        1 + kids[0] + kids[1]
    }
}

#[test]
fn hooks_run_in_the_order_of_a_recursive_walk() {
    let (arena, root) = formula("!(a & @b)");
    let mut t = Trace {
        arena: &arena,
        log: Vec::new(),
    };
    let size = fold(&mut t, root, 0);
    assert_eq!(size, 5, "!, &, a, @, b");
    assert_eq!(
        t.log,
        [
            "enter !(a() & @b()) at 0",
            "enter (a() & @b()) at 1",
            "enter a() at 2",
            "enter @b() at 2",
            "enter b() at 3",
            "leave @b() at 2 with [1, 0]",
            "leave (a() & @b()) at 1 with [1, 2]",
            "leave !(a() & @b()) at 0 with [4, 0]",
        ]
    );
}

#[test]
fn preorder_visits_parents_first_left_to_right() {
    let (arena, root) = formula("(a S b) | P c");
    let mut seen = Vec::new();
    preorder(&arena, root, |id, _| seen.push(arena.show(id)));
    assert_eq!(
        seen,
        [
            "((a() S b()) | P c())",
            "(a() S b())",
            "a()",
            "b()",
            "P c()",
            "c()"
        ]
    );
}

/// Visits another node in place of a call, as macro expansion does.
struct Inline<'a> {
    arena: &'a Arena,
    body: FormId,
}

impl Fold for Inline<'_> {
    type Node = FormId;
    type Ctx = ();
    type Out = String;
    fn enter(&mut self, id: FormId, _: &()) -> Step<FormId, (), String> {
        match self.arena.form(id) {
            Form::Call { name, .. } if name.name == "m" => Step::Into(Kids::one(self.body), ()),
            Form::Call { name, .. } => Step::Done(name.name.clone()),
            form => Step::Into(Kids::of(form), ()),
        }
    }
    fn leave(&mut self, id: FormId, _: &(), [a, b]: [String; 2]) -> String {
        match self.arena.form(id) {
            Form::Call { .. } => format!("<{a}>"),
            Form::Bin(op, ..) => format!("{a} {} {b}", op.symbol()),
            Form::Not(_) => format!("!{a}"),
            _ => a,
        }
    }
}

#[test]
fn a_fold_can_visit_another_node_in_place_of_the_subformulas() {
    let (mut arena, root) = formula("x | !m");
    let (y, z) = (event(&mut arena, "y"), event(&mut arena, "z"));
    let body = arena.push(Form::Bin(BinOp::And, y, z), Span::default());
    let mut f = Inline {
        arena: &arena,
        body,
    };
    assert_eq!(fold(&mut f, root, ()), "x | !<y & z>");
}

#[test]
fn a_walker_is_reused_and_a_leaf_root_gives_its_answer() {
    let (arena, root) = formula("a");
    let mut w = Walker::new();
    let mut t = Trace {
        arena: &arena,
        log: Vec::new(),
    };
    assert_eq!(w.fold(&mut t, root, 0), 1);
    assert_eq!(w.fold(&mut t, root, 0), 1);
    assert_eq!(t.log.len(), 2);
}

#[test]
fn kids_hold_up_to_two_nodes_in_order() {
    assert!(Kids::<u8>::none().is_empty());
    assert_eq!(Kids::one(7).iter().collect::<Vec<_>>(), [7]);
    assert_eq!(Kids::two(1, 2).iter().rev().collect::<Vec<_>>(), [2, 1]);
    assert_eq!(Kids::two(1, 2).len(), 2);
    let mut arena = Arena::new();
    let a = arena.push(Form::True, Span::default());
    let b = arena.push(Form::False, Span::default());
    assert_eq!(Kids::of(&Form::Bin(BinOp::Or, a, b)), Kids::two(a, b));
    assert_eq!(Kids::of(&Form::Not(a)), Kids::one(a));
    assert!(Kids::of(&Form::True).is_empty());
}

/// A formula nested 200,000 deep, folded on a thread with a 256 KiB stack:
/// a recursive walk would need far more.
#[test]
fn deep_formulas_fold_on_a_small_stack() {
    const DEPTH: usize = 200_000;
    let mut arena = Arena::new();
    let mut f = arena.push(Form::True, Span::default());
    for i in 0..DEPTH {
        let form = if i % 2 == 0 {
            Form::Not(f)
        } else {
            let leaf = arena.push(Form::False, Span::default());
            Form::Bin(BinOp::And, leaf, f)
        };
        f = arena.push(form, Span::default());
    }
    let depth = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            struct Depth<'a>(&'a Arena);
            impl Fold for Depth<'_> {
                type Node = FormId;
                type Ctx = ();
                type Out = usize;
                fn enter(&mut self, id: FormId, _: &()) -> Step<FormId, (), usize> {
                    Step::Into(Kids::of(self.0.form(id)), ())
                }
                fn leave(&mut self, _: FormId, _: &(), [a, b]: [usize; 2]) -> usize {
                    1 + a.max(b)
                }
            }
            let mut count = 0;
            preorder(&arena, f, |_, _| count += 1);
            (fold(&mut Depth(&arena), f, ()), count)
        })
        .expect("a thread")
        .join()
        .expect("no stack overflow");
    assert_eq!(depth, (DEPTH + 1, DEPTH + DEPTH / 2 + 1));
}
