//! `localm`: parse the command line, dispatch, and turn errors into one line and an exit code.

use std::process::ExitCode;

use clap::Parser;
use localm::{cli, exit};

fn main() -> ExitCode {
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => return exit::usage(e),
    };
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => exit::report(&e),
    }
}
