use super::parse_hosts;

#[test]
fn host_files_name_one_address_per_process() {
    let text = "# cluster\nnode1:2101\n\n  node2:2101  \nnode3:2101\n";
    assert_eq!(
        parse_hosts(text, 2).unwrap(),
        vec!["node1:2101".to_owned(), "node2:2101".to_owned()]
    );
    let short = parse_hosts("node1:2101\n", 2).unwrap_err();
    assert!(
        short.contains("2 processes need 2 addresses, the host file has 1"),
        "{short}"
    );
    let bad = parse_hosts("node1\nnode2:1\n", 2).unwrap_err();
    assert!(bad.contains("`node1` is not an address"), "{bad}");
}

#[test]
fn pieces_hold_plain_fields_trimmed() {
    use crate::cluster::piece::read_pieces;
    use crate::trace::{TraceOptions, TraceReader};
    use hashbrown::HashMap;

    // Blanks around plain CSV fields are trimmed, as every reader of CSV
    // trims them; a quoted field's content is kept.
    let trace = "login, root\n logout ,\troot \r\nlogin,\" x \"\n";
    let reader = TraceReader::new(trace.as_bytes(), TraceOptions::default());
    let arity: HashMap<Box<[u8]>, usize> = [(b"login".as_slice().into(), 1)].into();
    let mut got = Vec::new();
    read_pieces(reader, &arity, "t.csv", 0, &|| false, |piece| {
        assert!(piece.fault.is_none(), "{:?}", piece.fault);
        let mut fields = Vec::new();
        for ev in &piece.events {
            piece.fields_of(ev, &mut fields);
            let text: Vec<String> = fields
                .iter()
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .collect();
            got.push((ev.line, text));
        }
        true
    });
    let want: Vec<(u64, Vec<String>)> = vec![
        (1, vec!["login".into(), "root".into()]),
        (2, vec!["logout".into(), "root".into()]),
        (3, vec!["login".into(), " x ".into()]),
    ];
    assert_eq!(got, want);
}
