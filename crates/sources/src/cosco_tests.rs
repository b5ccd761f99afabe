#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use boxtrack_core::time::parse_micros;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../fixtures/cosco/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// The published answer `name` read as an answer for 6103622780 of `kind`, asked at `now`.
fn example(name: &str, kind: RequestType, now: i64) -> Read {
    read(&fixture(name), kind, "6103622780", now, None).unwrap()
}

fn utc(s: &str) -> i64 {
    parse_micros(s).unwrap()
}

fn event(o: &Observation) -> &EventFact {
    match &o.fact {
        Fact::Event(e) => e,
        other => panic!("not an event: {other:?}"),
    }
}

#[test]
fn a_request_is_signed_as_cop_documents_it() {
    // the expected signature was computed apart, with Python's hmac and hashlib
    let headers = signed_headers(
        "sim-key",
        "sim-secret",
        "GET",
        "/service/info/tracking/6103622780?numberType=bl",
        b"",
        "Tue, 23 Oct 2018 12:58:39 GMT",
        "0123456789abcdef0123456789abcdef",
    );
    let get = |n: &str| headers.iter().find(|(k, _)| *k == n).unwrap().1.clone();
    assert_eq!(
        get("X-Coscon-Digest"),
        "SHA-256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
    );
    assert_eq!(get("X-Coscon-Hmac"), get("X-Coscon-Content-Md5"));
    assert_eq!(
        get("X-Coscon-Authorization"),
        "hmac username=\"sim-key\",algorithm=\"hmac-sha1\",headers=\"X-Coscon-Date X-Coscon-Digest X-Coscon-Content-Md5 request-line\",signature=\"lLo+NfQmSFOd04ALzIny8mSwbXE=\""
    );
    assert_eq!(
        parse_authorization(&get("X-Coscon-Authorization")),
        Some(("sim-key".into(), "lLo+NfQmSFOd04ALzIny8mSwbXE=".into()))
    );
    // the README's form, with spaces after the commas, reads the same
    assert_eq!(
        parse_authorization(
            "hmac username=\"k\", algorithm=\"hmac-sha1\", headers=\"x\",signature=\"s\""
        ),
        Some(("k".into(), "s".into()))
    );
    assert_eq!(parse_authorization("Bearer x"), None);
}

#[test]
fn a_bill_s_answer_gives_its_legs_and_each_box_s_latest_status() {
    let now = utc("2015-02-07T00:00:00Z");
    let r = example("cop-tracking-bl.json", RequestType::BillOfLading, now);
    assert!(!r.not_found);
    let d = &r.digest;
    assert_eq!(d.bill_of_lading.as_deref(), Some("6103622780"));
    // Qingdao is not in boxtrack's port list: named, without a code
    assert_eq!(d.route.pol_locode, None);
    assert_eq!(d.route.pol_name.as_deref(), Some("Qingdao"));
    assert_eq!(d.route.pod_locode.as_deref(), Some("USLGB"));
    assert_eq!(d.route.pod_timezone.as_deref(), Some("America/Los_Angeles"));
    // the vessel: departed Qingdao (read as UTC), arrived at Long Beach at its clock (PST)
    let departed = d
        .shipment_wide
        .iter()
        .map(event)
        .find(|e| e.milestone == Milestone::VesselDeparted)
        .unwrap();
    assert!(!departed.estimated);
    assert_eq!(departed.place, Place::Origin);
    assert_eq!(departed.at_us, Some(utc("2014-12-29T11:00:00Z")));
    assert_eq!(departed.vessel_name.as_deref(), Some("COSCO PHILIPPINES"));
    assert_eq!(departed.voyage.as_deref(), Some("039E"));
    let arrived = d
        .shipment_wide
        .iter()
        .find(|o| event(o).milestone == Milestone::VesselArrived)
        .unwrap();
    assert_eq!(event(arrived).at_us, Some(utc("2015-01-27T13:24:00Z")));
    assert_eq!(event(arrived).locode.as_deref(), Some("USLGB"));
    // an actual milestone is reported at its own time: the same answer read later is the same
    assert_eq!(arrived.observed_us, utc("2015-01-27T13:24:00Z"));
    assert_eq!(arrived.precision, Precision::Minute);
    // the box's latest status: its empty returned at a Dallas depot
    let boxes: Vec<&String> = d.per_container.keys().collect();
    assert_eq!(boxes, ["CBHU4398907"]);
    let returned = &d.per_container["CBHU4398907"];
    assert_eq!(returned.len(), 1);
    let e = event(&returned[0]);
    assert_eq!(e.milestone, Milestone::EmptyIn);
    assert_eq!(e.locode, None, "a depot is no port");
    assert_eq!(e.at_us, Some(utc("2015-02-06T09:35:00Z")));
    assert!(
        d.notes.iter().any(|n| n.contains("Dallas")),
        "{:?}",
        d.notes
    );
    assert_eq!(r.milestones, 3);
    // the same answer read again says the same
    let again = example("cop-tracking-bl.json", RequestType::BillOfLading, now);
    assert_eq!(
        again.digest.for_container("CBHU4398907"),
        d.for_container("CBHU4398907")
    );
    // a booking's answer is the same content
    let bkg = example("cop-tracking-bkg.json", RequestType::BookingNumber, now);
    assert_eq!(
        bkg.digest.for_container("CBHU4398907"),
        d.for_container("CBHU4398907")
    );
}

#[test]
fn a_container_s_answer_is_its_current_trip_oldest_first() {
    let r = read(
        &fixture("cop-tracking-cntr.json"),
        RequestType::Container,
        "CBHU4398907",
        utc("2015-10-26T00:00:00Z"),
        None,
    )
    .unwrap();
    let events: Vec<&EventFact> = r.digest.per_container["CBHU4398907"]
        .iter()
        .map(event)
        .collect();
    let seen: Vec<(Milestone, Place)> = events.iter().map(|e| (e.milestone, e.place)).collect();
    assert_eq!(
        seen,
        [
            (Milestone::EmptyOut, Place::Origin),
            (Milestone::FullIn, Place::Origin),
            (Milestone::VesselLoaded, Place::Origin),
            (Milestone::TransshipmentDischarged, Place::Transshipment),
            (Milestone::TransshipmentLoaded, Place::Transshipment),
            (Milestone::VesselDischarged, Place::Pod),
        ],
        "Cargo Received is paperwork; the earlier trip is another shipment's"
    );
    // Singapore at UTC+8, Yangon at UTC+6:30
    assert_eq!(events[3].locode.as_deref(), Some("SGSIN"));
    assert_eq!(events[3].at_us, Some(utc("2015-10-04T00:26:00Z")));
    assert_eq!(events[5].locode.as_deref(), Some("MMRGN"));
    assert_eq!(events[5].at_us, Some(utc("2015-10-25T10:30:00Z")));
    assert!(r.digest.shipment_wide.is_empty());
    assert_eq!(r.digest.bill_of_lading, None);
}

#[test]
fn a_number_the_line_does_not_know_and_a_refusal_read_apart() {
    let r = read(
        &fixture("cop-tracking-none.json"),
        RequestType::BillOfLading,
        "NOPE",
        0,
        None,
    )
    .unwrap();
    assert!(r.not_found);
    assert!(r.digest.per_container.is_empty());
    let e = read(
        r#"{"code":5400,"message":"Parameter is Error"}"#,
        RequestType::BillOfLading,
        "X",
        0,
        None,
    )
    .unwrap_err();
    assert!(
        e.contains("5400") && e.contains("Parameter is Error"),
        "{e}"
    );
    assert!(
        read("<html>", RequestType::Container, "X", 0, None)
            .unwrap_err()
            .starts_with("not JSON")
    );
    assert!(
        read("[]", RequestType::Container, "X", 0, None)
            .unwrap_err()
            .contains("not a COP answer")
    );
}

#[test]
fn an_expected_arrival_is_an_estimate_reported_when_asked() {
    let body = r#"{"code":0,"message":"success","data":{"type":"bl","numberType":"bl","content":{
        "actualShipment":[{"rownum":"1","vesselName":"V","voyageNo":"1E","portOfLoading":"Shanghai",
        "actualDepartureDate":"2026-11-01 08:00","portOfDischarge":"Los Angeles","city":"Los Angeles,United States",
        "estimatedDateOfArrival":"2026-11-20 06:00","actualArrivalDate":" "}],
        "containerStatus":[{"label":"Loaded at First POL","containers":[{"containerNumber":"CSNU1234567",
        "label":"Loaded at First POL","location":"Yangshan,Shanghai,Shanghai,China","locationDateTime":"2026-10-31 20:00","transportation":"Vessel"}]}]}}}"#;
    let now = utc("2026-11-05T00:00:00Z");
    let r = read(body, RequestType::BillOfLading, "B1", now, None).unwrap();
    let d = &r.digest;
    assert_eq!(d.route.pol_locode.as_deref(), Some("CNSHA"));
    assert_eq!(d.route.pod_locode.as_deref(), Some("USLAX"));
    let eta = d
        .shipment_wide
        .iter()
        .find(|o| event(o).milestone == Milestone::VesselArrived)
        .unwrap();
    assert!(event(eta).estimated);
    assert_eq!(eta.observed_us, now);
    assert_eq!(event(eta).at_us, Some(utc("2026-11-20T14:00:00Z")));
    let loaded = event(&d.per_container["CSNU1234567"][0]);
    assert_eq!(loaded.milestone, Milestone::VesselLoaded);
    assert_eq!(loaded.locode.as_deref(), Some("CNSHA"));
    assert_eq!(loaded.at_us, Some(utc("2026-10-31T12:00:00Z")));
    assert_eq!(loaded.vessel_name.as_deref(), Some("V"));
    // a route already stored wins over the answer's names
    let known = Route {
        pod_locode: Some("USLGB".into()),
        ..Route::default()
    };
    let r = read(body, RequestType::BillOfLading, "B1", now, Some(&known)).unwrap();
    assert_eq!(r.digest.route.pod_locode.as_deref(), Some("USLGB"));
    assert_eq!(r.digest.bill_of_lading.as_deref(), Some("B1"));
}
