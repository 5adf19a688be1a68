//! `ivmc`: the command-line face of the compiler.
//!
//! `ivmc explain FILE...` (or `-e TEXT`) tells, for each query, its classes,
//! the strategy that maintains it with its bounds and source, or why it is
//! rejected, and the plan drawn as a tree; `--json` prints one JSON object
//! per query per line instead.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ivm_compiler::{diagnostic, explain};

#[derive(Parser)]
#[command(
    name = "ivmc",
    version,
    about = "Compiler for incremental view maintenance of join-aggregate queries"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Classify each query, and show its strategy and bounds or why it is rejected.
    Explain {
        /// `.ivm` files to read (each may hold several queries).
        #[arg(required_unless_present = "expr")]
        files: Vec<PathBuf>,
        /// Query text given on the command line instead of files.
        #[arg(
            short = 'e',
            long = "expr",
            value_name = "TEXT",
            conflicts_with = "files"
        )]
        expr: Option<String>,
        /// One JSON object per query per line.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Explain { files, expr, json } => {
            let mut inputs: Vec<(String, String)> = Vec::new();
            let mut failed = false;
            if let Some(text) = expr {
                inputs.push(("<-e>".to_owned(), text));
            }
            for path in files {
                match std::fs::read_to_string(&path) {
                    Ok(text) => inputs.push((path.display().to_string(), text)),
                    Err(e) => {
                        eprintln!("error: cannot read {}: {e}", path.display());
                        failed = true;
                    }
                }
            }
            let mut first = true;
            for (name, text) in &inputs {
                match explain::explain_str(text) {
                    Ok(reports) => {
                        for r in &reports {
                            if json {
                                println!("{}", explain::to_json(r));
                            } else {
                                if !first {
                                    println!();
                                }
                                print!("{}", explain::to_text(r));
                            }
                            first = false;
                        }
                    }
                    Err(e) => {
                        eprint!("{}", diagnostic::render(&e, name, text));
                        failed = true;
                    }
                }
            }
            if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}
