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
