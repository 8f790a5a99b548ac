//! The `nctk` binary: thin wrappers over the library functions in `nctk_cli`.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use nctk_cli::dump::{run_dump, DumpArgs};
use nctk_cli::validate::run_validate;

/// A pure-Rust netCDF toolkit.
#[derive(Parser)]
#[command(name = "nctk", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print a dataset as CDL, like ncdump (`-h` means header only).
    #[command(disable_help_flag = true)]
    Dump(DumpArgs),
    /// Check a classic netCDF file strictly; exits non-zero on errors.
    Validate {
        /// The file to check.
        file: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
    let result: Result<bool, String> = match &cli.command {
        Command::Dump(args) => nctk::open(&args.file)
            .map_err(|e| e.to_string())
            .and_then(|ds| run_dump(args, ds.source(), &mut out).map_err(|e| e.to_string()))
            .map(|()| true),
        Command::Validate { file } => run_validate(file, &mut out).map_err(|e| e.to_string()),
    };
    let flushed = out.flush().map_err(|e| e.to_string());
    match result.and_then(|ok| flushed.map(|()| ok)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("nctk: {e}");
            ExitCode::FAILURE
        }
    }
}
