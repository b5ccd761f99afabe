//! One fuzz target per parser of outside input. `cargo test -p boxtrack-fuzz` runs each for
//! a bounded number of inputs; `BOXTRACK_FUZZ_SECS=600 cargo test --release -p boxtrack-fuzz
//! -- --nocapture --test-threads 1` runs each for ten minutes (docs/hardening.md).

use std::path::{Path, PathBuf};

use boxtrack_fuzz::check;

/// The repository's `fixtures/` folder.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Every file under `fixtures/<dir>`.
fn seeds(dir: &str) -> Vec<Vec<u8>> {
    fn walk(p: &Path, out: &mut Vec<Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(p) else {
            return;
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                walk(&path, out);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push(bytes);
            }
        }
    }
    let mut out = Vec::new();
    walk(&fixtures().join(dir), &mut out);
    assert!(!out.is_empty(), "no seeds in fixtures/{dir}");
    out
}

const NOW_US: i64 = 1_790_000_000_000_000;

#[test]
fn x12_tokenizer_and_the_315_322_mappers() {
    use boxtrack_sources::x12;
    let dict: &[&[u8]] = &[
        b"ISA*00*", b"GS*", b"ST*315*", b"ST*322*", b"B4*", b"Q2*", b"R4*", b"DTM*", b"N9*",
        b"SG*", b"W2*", b"N7*", b"SE*", b"GE*", b"IEA*", b"~", b"*", b">", b"\r\n", b"^",
    ];
    check("x12", &seeds("x12"), dict, |b| {
        let text = String::from_utf8_lossy(b);
        let _ = x12::tokenize(&text);
        if let Ok(parsed) = x12::parse(&text) {
            let _ = parsed.errors().count();
            for (_, set) in parsed.sets() {
                if let Ok(m) = x12::status::read(set) {
                    let _ = x12::map::map(&m, NOW_US);
                }
            }
        }
    });
}

/// EDIFACT syntax, IFTSTA, CODECO and COARRI readers and the status mapper (seeds: the real
/// interchanges of `fixtures/edifact`, and a terminal's interchange as boxtrack writes it).
#[test]
fn edifact_syntax_iftsta_and_the_status_mapper() {
    use boxtrack_sources::{edifact, x12};
    let dict: &[&[u8]] = &[
        b"UNA:+.? '",
        b"UNA|*,# ~",
        b"UNB+UNOC:2+",
        b"UNH+1+IFTSTA:D:00B:UN'",
        b"UNT+",
        b"UNZ+",
        b"CNI+1'",
        b"STS+1+VD'",
        b"DTM+334:202211190710:203'",
        b"DTM+132:20221121:102'",
        b"LOC+175+USLAX'",
        b"LOC+9+",
        b"EQD+CN+MSKU1234565+45G1+++5'",
        b"RFF+BM:",
        b"TDT+20+",
        b"UNH+1+COARRI:D:95B:UN'",
        b"UNH+1+CODECO:D:95B:UN'",
        b"BGM+44+",
        b"BGM+36+",
        b"LOC+165+USLAX:139:6+T1:TER:ZZZ'",
        b"DTM+203:202211190710:203'",
        b"?'",
        b"??",
        b"?",
        b"'",
        b"+",
        b":",
        b"\r\n",
    ];
    let mut seeds = seeds("edifact");
    let at = x12::status::Stamp {
        qualifier: String::new(),
        date: "20261127".into(),
        time: Some("0815".into()),
        time_code: Some("LT".into()),
    };
    let reports: Vec<edifact::terminal::Report> = [
        edifact::terminal::Move::Discharged,
        edifact::terminal::Move::GateOut,
        edifact::terminal::Move::GateIn,
    ]
    .into_iter()
    .map(|kind| edifact::terminal::Report {
        kind,
        container: "MRSU4371639".into(),
        iso_type: Some("45G1".into()),
        full: kind != edifact::terminal::Move::GateIn,
        trade: "3",
        at: at.clone(),
        locode: "USLGB".into(),
        terminal: Some("PIERT".into()),
        vessel: None,
        bill_of_lading: Some("MAEU123456789".into()),
    })
    .collect();
    seeds.push(edifact::terminal::write_interchange(&reports, 1, "20261127", "1530").into_bytes());
    check("edifact", &seeds, dict, |b| {
        let text = String::from_utf8_lossy(b);
        let _ = edifact::tokenize(&text);
        if let Ok(parsed) = edifact::parse(&text) {
            for i in &parsed.interchanges {
                for m in &i.messages {
                    let (statuses, _) = edifact::iftsta::read(m);
                    let (moves, _) = edifact::terminal::read(m);
                    for s in statuses.iter().chain(&moves) {
                        let _ = x12::map::map(s, NOW_US);
                    }
                }
            }
        }
    });
}

/// DCSA 2.2 arrays and 3.0 `{"events": [...]}` bodies (seeds: both versions' fixtures).
#[test]
fn dcsa_event_json_and_the_mapper() {
    use boxtrack_sources::dcsa;
    let dict: &[&[u8]] = &[
        b"\"eventType\":\"TRANSPORT\"",
        b"\"eventType\":\"EQUIPMENT\"",
        b"\"eventType\":\"SHIPMENT\"",
        b"\"eventDateTime\":\"2026-02-30T25:61:00+14:00\"",
        b"\"eventClassifierCode\":\"ACT\"",
        b"\"UNLocationCode\":\"USLAX\"",
        b"\"equipmentReference\":\"MSKU1234565\"",
        // DCSA 3.0
        b"{\"events\":[",
        b"\"eventClassification\":{\"eventTypeCode\":\"EQUIPMENT\"}",
        b"\"eventUpdatedDateTime\":\"2026-01-01T00:00:00Z\"",
        b"\"isRetracted\":true",
        b"\"transportDetails\":{\"transportCall\":{}}",
        b"null",
        b"[]",
        b"{}",
        b"1e999",
        b"-0",
        b"\"\\u0000\"",
    ];
    let route = dcsa::Route {
        pol: Some("CNSHA".into()),
        pod: Some("USLAX".into()),
        destination: Some("USCHI".into()),
    };
    check("dcsa", &seeds("dcsa"), dict, |b| {
        if let Ok(parsed) = dcsa::parse(b, NOW_US) {
            let _ = dcsa::map(&parsed.events, &route);
        }
    });
}

#[test]
fn dcsa_push_signatures() {
    use boxtrack_sources::dcsa;
    let secret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldC0xMjM0NQ==";
    let body = b"[{\"eventID\":\"x\"}]".to_vec();
    let good = dcsa::sign(secret, &body).unwrap_or_default();
    let seed = [good.as_bytes(), b"\n", &body].concat();
    check("dcsa-signature", &[seed], &[b"sha256=", b"\n", b","], |b| {
        // the first line is the signature header, the rest the body
        let text = String::from_utf8_lossy(b);
        let (header, rest) = text.split_once('\n').unwrap_or((&text, ""));
        let _ = dcsa::verify_signature(secret, rest.as_bytes(), header);
        let _ = dcsa::verify_signature(header, rest.as_bytes(), header);
    });
}

#[test]
fn terminal_feed_json() {
    use boxtrack_sources::terminal;
    let seed = br#"{"container_number": "MSCU1234566", "terminal": "Y258",
        "discharged_at": "2026-11-20T08:00:00Z", "available_for_pickup": false,
        "holds": [{"name": "customs", "status": "hold", "description": "CBP hold"}],
        "fees": [{"type": "demurrage", "amount_minor": 15000, "currency_code": "USD"}],
        "last_free_day": "2026-11-24T08:00:00Z", "pickup_appointment_at": null,
        "yard_location": "B-07-1", "full_out_at": null, "full_out_chassis_number": null,
        "as_of": "2026-11-21T00:00:00Z"}"#
        .to_vec();
    let dict: &[&[u8]] = &[
        b"9223372036854775807",
        b"-9223372036854775808",
        b"\"2026-13-45T99:99:99Z\"",
        b"null",
        b"\"released\"",
        b"\"hold\"",
        b"[]",
    ];
    check("terminal-feed", &[seed], dict, |b| {
        if let Ok(s) = serde_json::from_slice::<terminal::TerminalStatus>(b) {
            let _ = terminal::refusals(&s);
            let _ = terminal::map(&s, Some("USLAX"));
            let _ = terminal::map(&s, None);
        }
    });
}

/// The NMEA checksum of a sentence's body (between `!` and `*`).
fn nmea_checksum(body: &str) -> u8 {
    body.bytes().fold(0, |a, b| a ^ b)
}

#[test]
fn ais_nmea_with_multi_part_messages() {
    use boxtrack_sources::ais;
    let dict: &[&[u8]] = &[
        b"!AIVDM,2,1,3,B,",
        b"!AIVDM,2,2,3,B,",
        b"!AIVDM,1,1,,A,",
        b"\\s:rx,c:1700000000*00\\",
        b",0*",
        b",2*",
        b"\n",
    ];
    check("ais", &seeds("ais"), dict, |b| {
        let text = String::from_utf8_lossy(b);
        let mut d = ais::Decoder::new();
        for (i, line) in text.lines().enumerate() {
            // every other line with its checksum made right, so the payload decoder is reached
            let fixed;
            let line = match (i % 2, line.find('!'), line.rfind('*')) {
                (0, Some(s), Some(e)) if s < e => {
                    fixed = format!("{}*{:02X}", &line[..e], nmea_checksum(&line[s + 1..e]));
                    fixed.as_str()
                }
                _ => line,
            };
            let _ = d.feed(line);
        }
    });
}

#[test]
fn aisstream_json_envelopes() {
    use boxtrack_sources::ais::stream;
    let position = br#"{"MessageType":"PositionReport","MetaData":{"MMSI":219000001,"ShipName":"X","latitude":51.9,"longitude":4.1,"time_utc":"2026-07-12 12:00:00.000000000 +0000 UTC"},"Message":{"PositionReport":{"MessageID":1,"UserID":219000001,"NavigationalStatus":0,"Sog":12.3,"Longitude":4.1,"Latitude":51.9,"Cog":180.5,"TrueHeading":181,"Timestamp":30}}}"#.to_vec();
    let statics = br#"{"MessageType":"ShipStaticData","MetaData":{"MMSI":219000001},"Message":{"ShipStaticData":{"MessageID":5,"UserID":219000001,"ImoNumber":9321483,"CallSign":"OXYZ2@@","Name":"MAERSK TEST@@@","Type":71,"Eta":{"Month":7,"Day":20,"Hour":6,"Minute":0},"MaximumStaticDraught":12.5,"Destination":"NLRTM"}}}"#.to_vec();
    let dict: &[&[u8]] = &[
        b"\"MessageType\":\"PositionReport\"",
        b"\"MessageType\":\"ShipStaticData\"",
        b"\"Eta\":{\"Month\":0,\"Day\":0}",
        b"\"TrueHeading\":511",
        b"\"Sog\":102.3",
        b"\"ImoNumber\":0",
        b"-1e308",
    ];
    check("aisstream", &[position, statics], dict, |b| {
        let _ = stream::parse(&String::from_utf8_lossy(b));
    });
}

#[test]
fn email_mime() {
    let plain = b"From: Ops <ops@forwarder.example>\r\nTo: docs@boxtrack.example\r\nSubject: Arrival notice MSKU1234565\r\nMessage-ID: <1@forwarder.example>\r\nDate: Tue, 24 Nov 2026 10:00:00 +0000\r\n\r\nPlease find attached.\r\n".to_vec();
    let multipart = b"From: ops@forwarder.example\r\nTo: docs@boxtrack.example\r\nSubject: BL MAEU123456789\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nBody text\r\n--b1\r\nContent-Type: application/pdf; name=\"an.pdf\"\r\nContent-Disposition: attachment; filename=\"an MSKU1234565.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJSBib3h0cmFjawolJUVPRgo=\r\n--b1--\r\n".to_vec();
    let dict: &[&[u8]] = &[
        b"Content-Type: multipart/mixed; boundary=\"",
        b"--b1\r\n",
        b"=?utf-8?B?",
        b"?=",
        b"Content-Transfer-Encoding: quoted-printable\r\n",
        b"=\r\n",
        b"filename*=UTF-8''",
        b"\r\n\r\n",
    ];
    check("email", &[plain, multipart], dict, |b| {
        let _ = boxtrack_core::email::parse(b);
    });
}

#[test]
fn container_numbers_bills_of_lading_and_reference_numbers() {
    use boxtrack_core::{carriers, ident};
    let seeds: Vec<Vec<u8>> = [
        "MSKU1234565",
        "msku 123456-5",
        "MAEU123456789",
        "HLCUHAM250912345",
        "123456789",
        "TEST-SCN-HOLDS",
        "CSNU7654321",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    check(
        "identifiers",
        &seeds,
        &[b"U", b"0", b"\xc3\xa9", b"-"],
        |b| {
            let s = String::from_utf8_lossy(b);
            let n = ident::normalize(&s);
            let _ = ident::validate_container(&n);
            let _ = ident::looks_like_container(&n);
            let _ = ident::is_reference_shape(&n);
            let _ = carriers::infer(&s);
            if n.len() >= 10 {
                let _ = ident::check_digit(n.get(..10).unwrap_or(""));
            }
        },
    );
}

#[test]
fn query_strings_filters_includes_sorts_and_pages() {
    use boxtrack_http::jsonapi::QueryParams;
    let seeds: Vec<Vec<u8>> = [
        "page[size]=10&page[number]=2&include=shipment,pod_terminal&sort=-updated_at",
        "filter[pickup_lfd][start]=2026-11-01&filter[pickup_lfd][end]=2026-11-30T23:59:59Z&filter[ready_for_pickup]=true",
        "page[after]=1790000000000000.0193a2b4c5d6e7f8091a2b3c4d5e6f70&page[size]=100",
        "q=MSKU&filter[current_status]=available,on_ship",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let dict: &[&[u8]] = &[
        b"%5B", b"%5D", b"%00", b"&", b"=", b"[", b"]", b"%", b"+", b".",
    ];
    check("query", &seeds, dict, |b| {
        let raw = String::from_utf8_lossy(b);
        let q = QueryParams::parse(Some(&raw));
        let _ = q.page();
        let _ = q.includes(
            "container",
            &["shipment", "pod_terminal", "transport_events"],
        );
        for name in [
            "filter[pickup_lfd][start]",
            "filter[pickup_lfd][end]",
            "filter[updated_at][start]",
        ] {
            let _ = q.time(name);
            let _ = q.time_end(name);
        }
        let _ = q.boolean("filter[ready_for_pickup]");
        let _ = q.text("q");
        if let Some(v) = q.get("filter[pickup_lfd][start]") {
            let _ = boxtrack_core::datebounds::range([v], NOW_US);
        }
        let _ = boxtrack_core::time::parse_instant_or_date(&raw);
        let _ = boxtrack_core::time::parse_http_date(&raw);
        let _ = boxtrack_core::paging::Key::parse(&raw);
    });
}

#[test]
fn json_api_request_bodies() {
    let seeds: Vec<Vec<u8>> = [
        r#"{"data":{"type":"tracking_request","attributes":{"request_number":"TEST-SCN-HOLDS","request_type":"bill_of_lading","scac":"TEST","ref_numbers":["PO-1"],"shipment_tags":["a"],"initial_custom_fields":{"shipment":[{"api_slug":"po","value":"x"}]}}}}"#,
        r#"{"data":{"type":"webhook","attributes":{"url":"https://example.com/hook","events":["container.transport.vessel_arrived"],"headers":{"X-A":"b"},"active":true}}}"#,
        r#"{"data":{"type":"party","attributes":{"company_name":"Acme"}}}"#,
        r#"{"data":{"type":"api_key","attributes":{"name":"ci"}}}"#,
        r#"{"data":{"type":"document","attributes":{"name":"x","attached_document":"sig"}}}"#,
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let dict: &[&[u8]] = &[
        b"null",
        b"[]",
        b"{}",
        b"\"\"",
        b"1e400",
        b"\"\\ud800\"",
        b"true",
    ];
    check(
        "json-api",
        &seeds,
        dict,
        boxtrack_api::fuzzing::request_bodies,
    );
}

#[test]
fn csv_and_xlsx_uploads() {
    let csv = b"number,type,scac,ref\nMSKU1234565,container,MAEU,PO-1\nTEST-SCN-HOLDS,bill_of_lading,TEST,\n\"quoted, number\",,,\n".to_vec();
    check(
        "csv-import",
        &[csv],
        &[b",", b"\"", b"\r\n", b"\"\"", b"\xef\xbb\xbf"],
        |b| {
            let _ = boxtrack_web::fuzzing::import_check(&String::from_utf8_lossy(b));
        },
    );
    let xlsx = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/tests/fixtures/import.xlsx"),
    )
    .unwrap_or_default();
    assert!(!xlsx.is_empty(), "the workbook seed is missing");
    check(
        "xlsx-import",
        &[xlsx],
        &[b"PK\x03\x04", b"<row>", b"<c t=\"s\">"],
        |b| {
            if let Ok(rows) = boxtrack_web::xlsx::first_sheet_rows(b, 1000) {
                let _ = boxtrack_web::fuzzing::import_check_records(&rows);
            }
        },
    );
}
