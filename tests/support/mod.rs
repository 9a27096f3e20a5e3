//! Test support: a reference evaluator for QTL and proptest strategies for
//! specifications and traces (issue 6), and rewriting of specifications
//! (renaming, macro expansion) for the metamorphic tests (issue 16). Not part
//! of the product.

// `gen` is a reserved keyword in edition 2024, so the module has another name.
pub mod gen_agg;
pub mod gen_guarded;
pub mod gen_interval;
pub mod reference;
pub mod rewrite;
#[path = "gen.rs"]
pub mod strategies;
