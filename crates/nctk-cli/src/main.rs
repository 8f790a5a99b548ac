//! The `nctk` binary: thin wrappers over the library functions in `nctk_tools`.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use nctk_tools::copy::command::{run_copy, CopyArgs};
use nctk_tools::copy::parse_size_named;
use nctk_tools::dump::{dump_file, DumpArgs};
use nctk_tools::gen::{gen, GenArgs, GenError};
use nctk_tools::refs::{refs_with_progress, RefsFormat, RefsOptions};
use nctk_tools::validate::run_validate;

mod progress;

/// A pure-Rust netCDF toolkit.
#[derive(Parser)]
#[command(name = "nctk", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per run: the size of the largest variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Print a dataset as CDL, like ncdump (`-h` means header only).
    #[command(disable_help_flag = true)]
    Dump(DumpArgs),
    /// Turn CDL into a netCDF file, like ncgen.
    Gen(GenCli),
    /// Copy a dataset, converting its format, like nccopy (`-h` is the chunk cache size).
    #[command(disable_help_flag = true)]
    Copy(CopyArgs),
    /// Check a classic or block-compressed classic netCDF file strictly; exits non-zero on errors.
    Validate {
        /// The file to check.
        file: String,
    },
    /// Write kerchunk references (JSON, version 1, or its Parquet form) to netCDF files' chunks, or an Icechunk repository of them (an output named *.icechunk, locally or on S3): the files as one virtual Zarr dataset.
    Refs {
        /// The netCDF files, block-compressed classic files or NCZarr/Zarr stores (paths or URLs); the references point at files as given, at a directory store's chunk objects by absolute path, at an object store's by URL.
        #[arg(required = true)]
        inputs: Vec<String>,
        /// The reference file to write, a directory of Parquet files for a name ending in .parq or .parquet, or the Icechunk repository: a directory named *.icechunk, or a prefix on S3 (s3://bucket/prefix.icechunk, http(s)://host/bucket/prefix.icechunk#mode=s3, or any S3 URL with --format icechunk; region, endpoint and credentials by the rules of nctk's S3 stores), which must hold nothing yet.
        #[arg(short = 'o', long = "output")]
        output: std::path::PathBuf,
        /// The references' form, json, parquet or icechunk (default: by the output's name).
        #[arg(long = "format")]
        format: Option<String>,
        /// Parquet output: chunk references per file (default 100000, as kerchunk's).
        #[arg(long = "record-size")]
        record_size: Option<u64>,
        /// The dimension several inputs are combined along (default: the first input's unlimited dimension).
        #[arg(long = "concat-dim")]
        concat_dim: Option<String>,
        /// Cut variables stored whole and raw into chunks of at most this size along their first dimension (K, M, G suffixes as nccopy's -m).
        #[arg(long = "chunk-bytes")]
        chunk_bytes: Option<String>,
        /// Inputs open at once (default 64): the inputs are read this many at a time, then closed, so memory and open files do not grow with their number.
        #[arg(long = "window")]
        window: Option<usize>,
    },
    /// Serve the datasets under a directory to cdmremote clients (netCDF-Java, siphon).
    Serve(ServeCli),
}

/// `nctk serve`'s flags.
#[derive(clap::Args)]
struct ServeCli {
    /// The directory whose datasets are served, as /cdmremote/PATH.
    dir: std::path::PathBuf,
    /// The port (0: any free port; the address is printed on stdout).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    bind: String,
    /// Also serve a path or URL nctk opens as /cdmremote/NAME (NAME=TARGET; repeatable).
    #[arg(long = "dataset", value_name = "NAME=TARGET")]
    datasets: Vec<String>,
}

/// Binds, prints the address the server answers on, and serves until killed.
fn run_serve(cli: &ServeCli, out: &mut impl Write) -> Result<bool, String> {
    let catalog = nctk_server::catalog(&cli.dir, &cli.datasets).map_err(|e| e.to_string())?;
    let host = if cli.bind.contains(':') {
        format!("[{}]", cli.bind)
    } else {
        cli.bind.clone()
    };
    let server = nctk_server::Server::bind(&format!("{host}:{}", cli.port), catalog)
        .map_err(|e| e.to_string())?;
    let addr = server.local_addr().map_err(|e| e.to_string())?;
    writeln!(
        out,
        "listening on http://{addr}{}",
        nctk_server::http::PREFIX
    )
    .and_then(|()| out.flush())
    .map_err(|e| e.to_string())?;
    server.run().map(|()| true).map_err(|e| e.to_string())
}

/// ncgen's flags.
#[derive(clap::Args)]
struct GenCli {
    /// Output kind: nc3/classic, nc6/64-bit offset, nc5/cdf5, nc4/netCDF-4, nc7 (or 1..5).
    #[arg(short = 'k')]
    kind: Option<String>,
    /// Classic format (same as -k nc3).
    #[arg(short = '3', conflicts_with_all = ["kind", "k4", "k5", "k6", "k7"])]
    k3: bool,
    /// netCDF-4 format (same as -k nc4).
    #[arg(short = '4', conflicts_with_all = ["kind", "k5", "k6", "k7"])]
    k4: bool,
    /// CDF-5 format (same as -k nc5).
    #[arg(short = '5', conflicts_with_all = ["kind", "k6", "k7"])]
    k5: bool,
    /// 64-bit offset format (same as -k nc6).
    #[arg(short = '6', conflicts_with_all = ["kind", "k7"])]
    k6: bool,
    /// netCDF-4 classic model (same as -k nc7).
    #[arg(short = '7', conflicts_with = "kind")]
    k7: bool,
    /// Output file (implies -b).
    #[arg(short = 'o')]
    output: Option<std::path::PathBuf>,
    /// Write a binary netCDF file named after the input.
    #[arg(short = 'b')]
    binary: bool,
    /// Do not pre-fill variables with fill values.
    #[arg(short = 'x')]
    no_fill: bool,
    /// Name for the default output file.
    #[arg(short = 'N')]
    name: Option<String>,
    /// The CDL file (`-` for standard input).
    file: String,
}

impl GenCli {
    fn to_args(&self) -> GenArgs {
        let numeric = [
            (self.k3, "-3"),
            (self.k4, "-4"),
            (self.k5, "-5"),
            (self.k6, "-6"),
            (self.k7, "-7"),
        ]
        .into_iter()
        .find_map(|(on, flag)| on.then(|| flag.to_string()));
        // ncgen names the default output after the input file.
        let stem = std::path::Path::new(&self.file)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned());
        GenArgs {
            kind: self.kind.clone().or(numeric),
            output: self.output.clone(),
            binary: self.binary,
            no_fill: self.no_fill,
            name: self.name.clone().or(stem.filter(|_| self.file != "-")),
        }
    }
}

fn run_gen(cli: &GenCli) -> Result<bool, String> {
    let mut text = Vec::new();
    if cli.file == "-" {
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut text)
            .map_err(|e| format!("stdin: {e}"))?;
    } else {
        text = std::fs::read(&cli.file).map_err(|e| format!("{}: {e}", cli.file))?;
    }
    gen(&cli.to_args(), &text, std::path::Path::new("."))
        .map(|_| true)
        .map_err(|e| match e {
            // Only the CDL's errors are the input's; the others name what
            // they are about.
            GenError::Cdl(_) => format!("{}: {e}", cli.file),
            e => e.to_string(),
        })
}

/// On SIGINT or SIGTERM: removes the temporary outputs of `gen` and `copy`
/// and exits with 128 + the signal's number, as a shell reports a process
/// the signal ended.
fn remove_temporaries_on_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            nctk_tools::remove_temporaries();
            std::process::exit(128 + signal);
        }
    });
}

/// Lets a write to a closed pipe end the process by SIGPIPE, as it ends
/// ncdump (`nctk dump big.nc | head` stops quietly, status 141); Rust
/// ignores SIGPIPE by default, which turns it into a write error.
fn die_on_broken_pipe() {
    // SAFETY: restoring the default disposition of SIGPIPE, before any
    // thread is started, has no memory-safety effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// `nctk refs`.
fn run_refs(
    inputs: &[String],
    output: &std::path::Path,
    concat_dim: &Option<String>,
    chunk_bytes: Option<&str>,
    format: Option<&str>,
    record_size: Option<u64>,
    window: Option<usize>,
) -> Result<bool, String> {
    let format = format
        .map(|f| {
            RefsFormat::from_name(f)
                .ok_or_else(|| format!("--format {f:?}: expected json, parquet or icechunk"))
        })
        .transpose()?;
    let chunk_bytes = chunk_bytes
        .map(|s| parse_size_named(s, "--chunk-bytes").map(|n| n as u64))
        .transpose()
        .map_err(|e| e.to_string())?;
    let options = RefsOptions {
        concat_dim: concat_dim.clone(),
        chunk_bytes,
        format,
        record_size,
        window,
    };
    refs_with_progress(inputs, output, &options, &mut *progress::refs_for_stderr())
        .map(|_| true)
        .map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Dump(_) | Command::Validate { .. } => die_on_broken_pipe(),
        Command::Gen(_) | Command::Copy(_) | Command::Refs { .. } => {
            remove_temporaries_on_signals()
        }
        Command::Serve(_) => {}
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
    let result: Result<bool, String> = match &cli.command {
        Command::Dump(args) => dump_file(args, &mut out)
            .map_err(|e| e.to_string())
            .map(|()| true),
        Command::Gen(args) => run_gen(args),
        Command::Copy(args) => run_copy(args, progress::for_stderr)
            .map(|_| true)
            .map_err(|e| e.to_string()),
        Command::Validate { file } => run_validate(file, &mut out).map_err(|e| e.to_string()),
        Command::Refs {
            inputs,
            output,
            concat_dim,
            chunk_bytes,
            format,
            record_size,
            window,
        } => run_refs(
            inputs,
            output,
            concat_dim,
            chunk_bytes.as_deref(),
            format.as_deref(),
            *record_size,
            *window,
        ),
        Command::Serve(args) => run_serve(args, &mut out),
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
