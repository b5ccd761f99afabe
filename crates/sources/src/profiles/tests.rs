#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use super::*;
use crate::auth::Auth;

fn parse(text: &str) -> Result<CarrierConfig, String> {
    #[derive(Deserialize)]
    struct File {
        carriers: BTreeMap<String, CarrierConfig>,
    }
    toml::from_str::<File>(text)
        .map(|f| f.carriers.into_values().next().unwrap())
        .map_err(|e| e.to_string())
}

fn env(name: &str) -> Option<String> {
    (name == "SECRET").then(|| "from-env".to_string())
}

fn expanded(text: &str) -> Result<crate::auth::Endpoint, String> {
    parse(text)?
        .expand()
        .map_err(|e| e.to_string())?
        .resolve(&env)
        .map_err(|e| e.to_string())
}

#[test]
fn every_profile_names_its_sources_and_the_day_they_were_read() {
    for p in PROFILES {
        assert!(!p.sources.is_empty(), "{}", p.name);
        for s in p.sources {
            assert!(s.url.starts_with("https://"), "{}: {}", p.name, s.url);
            assert_eq!(s.read, READ_ON, "{}", p.name);
            assert!(!s.says.is_empty(), "{}", p.name);
        }
        // a profile that says it is documented rests on the line's own publication
        if p.status == Status::Documented {
            assert!(p.sources.iter().any(|s| s.carrier_published), "{}", p.name);
        }
        assert!(!p.credentials_howto.is_empty(), "{}", p.name);
    }
}

#[test]
fn names_and_scacs_are_unique_and_scacs_are_known_carriers() {
    let mut names = BTreeSet::new();
    let mut scacs = BTreeSet::new();
    for p in PROFILES {
        assert!(names.insert(p.name), "profile {} twice", p.name);
        for s in p.scacs {
            assert!(scacs.insert(*s), "SCAC {s} in two profiles");
            // every SCAC is a line (or an alternative SCAC of one) in the reference data
            let known = boxtrack_core::carriers::shipping_lines()
                .iter()
                .any(|l| l.scac == *s || l.alternative_scacs.iter().any(|a| a.as_str() == *s));
            assert!(known, "{}: {s} is not in the carrier data", p.name);
        }
    }
    let expected = [
        "maersk",
        "hapag-lloyd",
        "cma-cgm",
        "one",
        "evergreen",
        "msc",
        "zim",
        "hmm",
        "yang-ming",
        "cosco",
    ];
    assert_eq!(names, expected.into_iter().collect());
    assert_eq!(for_scac("aplu").map(|p| p.name), Some("cma-cgm"));
    assert_eq!(for_scac("MEDU").map(|p| p.name), Some("msc"));
    assert!(for_scac("TEST").is_none());
}

#[test]
fn profiles_that_do_not_confirm_a_fact_say_why() {
    for p in PROFILES {
        if let Status::NotConfirmed { why } = p.status {
            assert!(!why.is_empty(), "{}", p.name);
        }
        if p.base_url.is_none() || matches!(p.auth, ProfileAuth::NotConfirmed { .. }) {
            assert_ne!(p.status, Status::Documented, "{}", p.name);
        }
        if let Some(u) = p.base_url {
            assert!(u.starts_with("https://") && !u.ends_with('/'), "{}", p.name);
        }
    }
}

/// Every profile with a base URL, a DCSA format and a scheme boxtrack computes becomes, with
/// its credentials, a table the carrier client resolves: the same checks as a hand-written one.
#[test]
fn a_dcsa_profile_with_a_base_url_makes_a_config_the_client_accepts() {
    let mut tried = 0;
    for p in PROFILES {
        let (Some(url), Some(version)) = (p.base_url, p.format.dcsa()) else {
            continue;
        };
        if matches!(
            p.auth,
            ProfileAuth::Unsupported { .. } | ProfileAuth::NotConfirmed { .. }
        ) {
            continue;
        }
        let creds: String = p
            .auth
            .credentials()
            .iter()
            .map(|k| format!("{k} = {{ env = \"SECRET\" }}\n"))
            .collect();
        let text = format!("[carriers.X]\nprofile = \"{}\"\n{creds}", p.name);
        let ep = expanded(&text).unwrap_or_else(|e| panic!("{}: {e}", p.name));
        assert_eq!(ep.url, url, "{}", p.name);
        assert_eq!(ep.dcsa_version, version, "{}", p.name);
        assert_eq!(ep.auth.scheme(), p.auth.scheme(), "{}", p.name);
        tried += 1;
    }
    assert!(
        tried >= 1,
        "no profile could be connected with credentials alone"
    );
    let ep = expanded(
        "[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nclient_id = \"id-1\"\nclient_secret = { env = \"SECRET\" }",
    )
    .unwrap();
    let Auth::Headers(h) = &ep.auth else {
        panic!("{:?}", ep.auth)
    };
    let shown: Vec<(&str, &str)> = h.iter().map(|(n, v)| (n.as_str(), v.expose())).collect();
    assert_eq!(
        shown,
        [
            ("x-ibm-client-id", "id-1"),
            ("x-ibm-client-secret", "from-env")
        ]
    );
}

#[test]
fn keys_written_in_the_table_beat_the_profile() {
    // Maersk: no confirmed base URL, so url is given; OAuth2 with the Consumer-Key header
    let ep = expanded(
        "[carriers.MAEU]\nprofile = \"maersk\"\nurl = \"https://api.carrier.example/tnt\"\nclient_id = \"ck\"\nclient_secret = \"cs\"",
    )
    .unwrap();
    let Auth::OAuth2(o) = &ep.auth else {
        panic!("{:?}", ep.auth)
    };
    assert_eq!(o.token_url, "https://api.maersk.com/oauth2/access_token");
    assert_eq!(o.client_auth, ClientAuth::Body);
    assert_eq!(o.headers[0].0.as_str(), "consumer-key");
    assert_eq!(o.headers[0].1.expose(), "ck");
    assert_eq!(ep.url, "https://api.carrier.example/tnt");

    // url, dcsa_version and a whole auth table override Hapag-Lloyd's
    let ep = expanded(
        "[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nurl = \"http://127.0.0.1:9/sim\"\ndcsa_version = \"3.0\"\n[carriers.HLCU.auth]\ntype = \"query\"\nparam = \"apikey\"\nvalue = \"k\"",
    )
    .unwrap();
    assert_eq!(ep.url, "http://127.0.0.1:9/sim");
    assert_eq!(ep.dcsa_version, Version::V3_0);
    assert_eq!(ep.auth.scheme(), "query");
    // an auth table for a profile whose authentication is not confirmed
    let ep = expanded(
        "[carriers.MSCU]\nprofile = \"msc\"\nurl = \"https://msc.example/dcsa\"\nauth_header = \"X-Key\"\nauth_value = \"v\"",
    )
    .unwrap();
    assert_eq!(ep.auth.scheme(), "headers");
    assert_eq!(ep.dcsa_version, Version::V2_2);
    // without a profile the table is as written
    let ep = expanded("[carriers.X]\nurl = \"https://x.example\"").unwrap();
    assert_eq!(ep.auth, Auth::None);
}

#[test]
fn host_url_stands_for_the_lines_hosts() {
    let sim = "http://127.0.0.1:8090/sim/v1/lines";
    // Hapag-Lloyd's base URL keeps its path on the simulator
    let ep = expanded(&format!(
        "[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nhost_url = \"{sim}/hapag-lloyd/\"\nclient_id = \"a\"\nclient_secret = \"b\""
    ))
    .unwrap();
    assert_eq!(ep.url, format!("{sim}/hapag-lloyd/hlag/external"));
    // Maersk's token endpoint too; a url written stays as written
    let ep = expanded(&format!(
        "[carriers.MAEU]\nprofile = \"maersk\"\nhost_url = \"{sim}/maersk\"\nurl = \"{sim}/maersk\"\nclient_id = \"a\"\nclient_secret = \"b\""
    ))
    .unwrap();
    let Auth::OAuth2(o) = &ep.auth else {
        panic!("{:?}", ep.auth)
    };
    assert_eq!(o.token_url, format!("{sim}/maersk/oauth2/access_token"));
    assert_eq!(ep.url, format!("{sim}/maersk"));
    assert_eq!(
        rebase("https://a.example/x?y=1", "http://h:1/p/"),
        "http://h:1/p/x?y=1"
    );
    assert_eq!(rebase("https://a.example/", "http://h:1"), "http://h:1");
    // without a profile it means nothing
    let e =
        expanded("[carriers.X]\nurl = \"https://x.example\"\nhost_url = \"http://h\"").unwrap_err();
    assert!(e.starts_with("host_url:"), "{e}");
}

#[test]
fn what_is_missing_or_wrong_is_named() {
    let err = |text: &str| expanded(text).unwrap_err();
    let e = err("[carriers.MAEU]\nprofile = \"maersk2\"");
    assert!(
        e.starts_with("profile:") && e.contains("maersk2") && e.contains("hapag-lloyd"),
        "{e}"
    );
    let e = err("[carriers.MAEU]\nprofile = \"maersk\"\nclient_id = \"a\"\nclient_secret = \"b\"");
    assert!(
        e.starts_with("url:") && e.contains("developer.maersk.com"),
        "{e}"
    );
    let e = err("[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nclient_id = \"a\"");
    assert!(
        e.starts_with("client_secret:") && e.contains("client_id, client_secret"),
        "{e}"
    );
    let e = err(
        "[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nclient_id = \"a\"\nclient_secret = \"b\"\nconsumer_key = \"c\"",
    );
    assert!(e.starts_with("consumer_key:"), "{e}");
    let e = err(
        "[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nclient_id = \"a\"\nauth_header = \"K\"\nauth_value = \"v\"",
    );
    assert!(e.starts_with("client_id:") && e.contains("replaces"), "{e}");
    let e = err("[carriers.MSCU]\nprofile = \"msc\"\nurl = \"https://msc.example\"");
    assert!(
        e.starts_with("auth:") && e.contains("no confirmed authentication"),
        "{e}"
    );
    let e = err("[carriers.COSU]\nprofile = \"cosco\"\napi_key = \"k\"");
    assert!(e.starts_with("secret_key:") && e.contains("missing"), "{e}");
    let e = err("[carriers.HDMU]\nprofile = \"hmm\"\nurl = \"https://hmm.example\"");
    assert!(e.starts_with("profile:") && e.contains("own format"), "{e}");
    let e = err("[carriers.X]\nauth_header = \"K\"\nauth_value = \"v\"");
    assert!(e.starts_with("url:") && e.contains("profile"), "{e}");
    // a missing secret is still named by resolve, under the profile's auth table
    let e = err(
        "[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nclient_id = \"a\"\nclient_secret = { env = \"NOPE\" }",
    );
    assert!(
        e.contains("auth.headers.X-IBM-Client-Secret") && e.contains("NOPE"),
        "{e}"
    );
    // without a profile an unknown key is refused when the file is read
    let e = parse("[carriers.X]\nurl = \"https://x.example\"\nurll = \"y\"").unwrap_err();
    assert!(e.contains("urll"), "{e}");
    let e = parse("[carriers.X]\nprofile = \"maersk\"\nclient_id = 5").unwrap_err();
    assert!(e.contains("credential"), "{e}");
}

#[test]
fn secrets_stay_hidden_in_debug_output() {
    let c = parse("[carriers.HLCU]\nprofile = \"hapag-lloyd\"\nclient_id = \"a\"\nclient_secret = \"inline-secret-value\"").unwrap();
    assert!(!format!("{c:?}").contains("inline-secret-value"));
    let shown = format!("{:?}", c.expand().unwrap());
    assert!(!shown.contains("inline-secret-value"), "{shown}");
}

#[test]
fn every_profile_says_what_connecting_takes() {
    for p in PROFILES {
        let line = p.auth.describe();
        assert!(!line.is_empty() && !p.connect().is_empty(), "{}", p.name);
        // a profile connected with credentials only lists them all
        if p.connect() == "credentials only" {
            assert!(!p.auth.credentials().is_empty(), "{}", p.name);
        }
    }
    let json = serde_json::to_value(PROFILES).unwrap();
    assert_eq!(json[1]["name"], "hapag-lloyd");
    assert_eq!(json[1]["format"]["version"], "2.2");
    assert_eq!(json[1]["auth"]["type"], "headers");
    assert_eq!(json[1]["status"], "partly confirmed");
}

/// `docs/carriers.md`'s coverage table has a row per profile with its status.
#[test]
fn the_coverage_page_shows_every_profile() {
    let page = include_str!("../../../../docs/carriers.md");
    for p in PROFILES {
        let row = page
            .lines()
            .find(|l| l.contains(&format!("| `{}` |", p.name)))
            .unwrap_or_else(|| panic!("docs/carriers.md has no row for {}", p.name));
        let status = match p.status {
            Status::Documented => "documented",
            Status::PartlyConfirmed => "partly confirmed",
            Status::NotConfirmed { .. } => "not confirmed",
        };
        assert!(row.ends_with(&format!("| {status} |")), "{row}");
        assert!(row.contains(&p.scacs.join(", ")), "{row}");
    }
}
