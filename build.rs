//! Generates the QTL parser from `grammar/qtl.lalrpop` with LALRPOP.
fn main() {
    println!("cargo:rerun-if-changed=grammar/qtl.lalrpop");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(out)
        .process()
        .expect("the QTL grammar must compile");
}
