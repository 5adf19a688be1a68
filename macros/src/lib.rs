//! The `ivm_query!` procedural macro.
//!
//! This crate stays thin on purpose: it hands the macro's tokens to
//! [`ivm_compiler`] and turns what comes back (generated code, or spanned
//! errors) into tokens. Code generation lands with the view-tree work; until
//! then the crate only exists so the workspace has its final shape.
