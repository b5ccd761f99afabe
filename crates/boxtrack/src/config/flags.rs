//! The settings as command-line flags, made from their declarations ([`super::specs`]): a
//! command flattens `SettingFlags<GROUP>` and gets one flag per setting of that group, its
//! `--help` from the declaration. Values are kept as text; [`super::resolve_with`] checks
//! them like any other layer's, naming the flag.

use std::collections::BTreeMap;

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};

use super::Layer;
use super::specs::{Flag, SETTINGS, Spec};

/// The global flags (every command).
pub const GLOBAL: u8 = 0;
/// The flags of `serve`.
pub const SERVE: u8 = 1;
/// The webhook flags of `serve` and `demo`.
pub const WEBHOOKS: u8 = 2;

fn group(flag: Flag) -> Option<u8> {
    match flag {
        Flag::Global => Some(GLOBAL),
        Flag::Serve => Some(SERVE),
        Flag::Webhooks => Some(WEBHOOKS),
        Flag::None => None,
    }
}

fn of_group(g: u8) -> impl Iterator<Item = &'static Spec> {
    SETTINGS.iter().filter(move |s| group(s.flag) == Some(g))
}

/// The settings of one group as given on the command line.
#[derive(Debug, Clone, Default)]
pub struct SettingFlags<const GROUP: u8> {
    given: BTreeMap<&'static str, String>,
}

impl<const GROUP: u8> SettingFlags<GROUP> {
    /// The value given for setting `name`, if any.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.given.get(name).map(String::as_str)
    }

    /// `layer` with these flags added.
    pub fn onto(&self, layer: Layer) -> Layer {
        self.given
            .iter()
            .fold(layer, |l, (name, v)| l.with(name, Some(v)))
    }
}

fn arg(s: &Spec) -> Arg {
    let a = Arg::new(s.name).long(s.long()).help(s.help());
    let a = if s.value.is_empty() {
        a.action(ArgAction::SetTrue)
    } else {
        a.action(ArgAction::Set).value_name(s.value)
    };
    if group(s.flag) == Some(GLOBAL) {
        a.global(true)
    } else {
        a
    }
}

impl<const GROUP: u8> FromArgMatches for SettingFlags<GROUP> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut out = SettingFlags::default();
        out.update_from_arg_matches(matches)?;
        Ok(out)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for s in of_group(GROUP) {
            let v = if s.value.is_empty() {
                matches.get_flag(s.name).then(|| "true".to_string())
            } else {
                matches.get_one::<String>(s.name).cloned()
            };
            if let Some(v) = v {
                self.given.insert(s.name, v);
            }
        }
        Ok(())
    }
}

impl<const GROUP: u8> Args for SettingFlags<GROUP> {
    fn augment_args(cmd: Command) -> Command {
        cmd.args(of_group(GROUP).map(arg))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
