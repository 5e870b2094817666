//! The `qajudge` binary: a thin shell over the library's CLI. It picks the global
//! allocator (mimalloc: loading and matching allocate many small strings).

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    qajudge::cli::run()
}
