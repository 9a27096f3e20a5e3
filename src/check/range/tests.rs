//! Range restriction and the arrangement of constraints.
