//! `ivmc`: the command-line face of the compiler.
//!
//! `ivmc explain FILE...` (or `-e TEXT`) tells, for each query, its classes,
//! the strategy that maintains it with its bounds and source, or why it is
//! rejected, and the plan drawn as a tree; `--json` prints one JSON object
//! per query per line instead, `--ir` the maintenance IR. `ivmc compile
//! FILE` prints the Rust code generated for a file's queries.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ivm_compiler::{diagnostic, driver, explain, pipeline};

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
        #[arg(long, conflicts_with = "ir")]
        json: bool,
        /// Print the maintenance IR (maps, triggers, enumerator) instead.
        #[arg(long)]
        ir: bool,
    },
    /// Print the Rust code generated for the queries of a file.
    Compile {
        /// The `.ivm` file to compile.
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Compile { file } => {
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("error: cannot read {}: {e}", file.display());
                    return ExitCode::FAILURE;
                }
            };
            match driver::compile_str(&text) {
                Ok(code) => {
                    print!("{code}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprint!(
                        "{}",
                        diagnostic::render(&e, &file.display().to_string(), &text)
                    );
                    ExitCode::FAILURE
                }
            }
        }
        Command::Explain {
            files,
            expr,
            json,
            ir,
        } => {
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
                if ir {
                    match driver::ir_str(text) {
                        Ok(programs) => {
                            for p in programs {
                                if !first {
                                    println!();
                                }
                                first = false;
                                match p {
                                    Ok(program) => print!("{program}"),
                                    Err(e) => {
                                        eprint!("{}", diagnostic::render(&e, name, text));
                                        failed = true;
                                    }
                                }
                            }
                        }
                        Err(e) => {
                            eprint!("{}", diagnostic::render(&e, name, text));
                            failed = true;
                        }
                    }
                    continue;
                }
                match pipeline::report_str(text) {
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
