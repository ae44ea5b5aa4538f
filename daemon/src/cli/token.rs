//! `localm token show|rotate`: the loopback listener's bearer token in `<data dir>/api-token`.
//! It is kept across daemon starts; `rotate` replaces it, and a running daemon honours the new
//! one (and refuses the old) from its next request on, as it re-reads the file when it changes.

use clap::Subcommand;

use super::Context;
use super::output::print;
use crate::service::token;

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Print the token programs send as `Authorization: Bearer TOKEN` (made if there is none).
    Show,
    /// Replace the token with a new random one; the old one stops working at once.
    Rotate,
}

pub fn run(ctx: &Context, cmd: TokenCommand) -> anyhow::Result<()> {
    match cmd {
        TokenCommand::Show => {
            localm_core::fsutil::create_private_dir(&ctx.data_dir)?;
            print(&format!("{}\n", token::load_or_create(&ctx.data_dir)?));
        }
        TokenCommand::Rotate => {
            localm_core::fsutil::create_private_dir(&ctx.data_dir)?;
            token::write_new(&ctx.data_dir)?;
            print(&format!(
                "a new token is in {}; the old one no longer works (a running daemon uses the new one from its next request)\n",
                token::path(&ctx.data_dir).display()
            ));
        }
    }
    Ok(())
}
