//! `nctk-fault-proxy --listen PORT --upstream URL [--latency-ms N]`: the
//! test suite's [`FaultProxy`] run by hand or by a benchmark, forwarding
//! to `URL` with `N` ms added before each request, until killed.

use std::time::Duration;

use clap::Parser;
use nctk_test_servers::FaultProxy;

/// A latency-adding HTTP/1.1 reverse proxy on 127.0.0.1.
#[derive(Parser)]
#[command(name = "nctk-fault-proxy")]
struct Args {
    /// The port to listen on (127.0.0.1; 0 picks a free one).
    #[arg(long)]
    listen: u16,
    /// The upstream server, `http://host:port`.
    #[arg(long)]
    upstream: String,
    /// Milliseconds to wait before forwarding each request.
    #[arg(long, default_value_t = 0)]
    latency_ms: u64,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let proxy = match FaultProxy::start_on(([127, 0, 0, 1], args.listen).into(), &args.upstream) {
        Ok(proxy) => proxy,
        Err(e) => {
            eprintln!("nctk-fault-proxy: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    proxy.set_latency(Duration::from_millis(args.latency_ms));
    // The endpoint on stdout, so a script that asked for port 0 learns it.
    println!("{}", proxy.endpoint());
    loop {
        std::thread::park();
    }
}
