//! The `qajudge` binary: a thin shell over the library's CLI.

fn main() -> std::process::ExitCode {
    qajudge::cli::run()
}
