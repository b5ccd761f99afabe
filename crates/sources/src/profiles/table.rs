//! The profiles, one per line, as read on [`super::READ_ON`]. Each fact names its source in
//! `sources`; `docs/carriers-research.md` has the notes. Nothing here was tried against a
//! live service.

use super::{CarrierProfile, Format, HeaderCredential, ProfileAuth, Source, Status};
use crate::auth::ClientAuth;
use crate::dcsa::Version;

/// Every profile, in the order `boxtrack carriers profiles` lists them.
pub static PROFILES: &[CarrierProfile] = &[
    CarrierProfile {
        name: "maersk",
        line: "Maersk",
        scacs: &["MAEU"],
        portal: Some("https://developer.maersk.com"),
        base_url: None,
        format: Format::NotConfirmed {
            why: "no Maersk page found names the Track & Trace path or its DCSA version; other parties name /track-and-trace-private (DCSA-like, 2.2 parameters) and /track-and-trace/v3/events (DCSA 3.0.0-Beta-1, not the released 3.0 boxtrack reads)",
        },
        auth: ProfileAuth::OAuth2 {
            token_url: "https://api.maersk.com/oauth2/access_token",
            client_auth: ClientAuth::Body,
            headers: &[HeaderCredential {
                header: "Consumer-Key",
                credential: "client_id",
            }],
        },
        identifiers: "bill of lading, booking, container (another party's reading; not on a Maersk page found)",
        paging: "not confirmed (another party saw First-Page / Previous-Page / Next-Page / Last-Page headers, Previous-Page where DCSA says Prev-Page)",
        rate_limit: "not published",
        gaps: &[
            "the client id is the app's Consumer-Key: the profile sends it as the Consumer-Key header too",
            "Maersk's authorisation page was seen in two versions: token at /oauth2/access_token, and at /customer-identity/oauth/v2/access_token with a Consumer-Key header on the token request (which boxtrack does not send); the profile uses the first",
            "the Track & Trace base URL is not confirmed: write url from the API product page of your app",
        ],
        credentials_howto: "Register at developer.maersk.com, create an app and add the Track & Trace product; the app's Consumer-Key is the client_id, its secret the client_secret.",
        sources: &[
            Source {
                url: "https://developer.maersk.com/support/authorisation",
                read: super::READ_ON,
                carrier_published: true,
                says: "OAuth 2.0 client credentials; the client id is the app's Consumer-Key; token POST with grant_type, client_id and client_secret in the form to https://api.maersk.com/oauth2/access_token (one stored version) or https://api.maersk.com/customer-identity/oauth/v2/access_token with a Consumer-Key header (another); then Authorization: Bearer",
            },
            Source {
                url: "https://smds.maersk.io/docs-resources/developer-guides/using-cmd-apis/",
                read: super::READ_ON,
                carrier_published: true,
                says: "another Maersk API: production token URL https://api.maersk.com/oauth2/access_token, requests carry a Consumer-Key header",
            },
            Source {
                url: "https://github.com/samjhecht/steamship-integrations/blob/1e8e4b859dce5b58b30aaaf35e8687154c284ded/docs/carriers/maersk/api-inventory.md",
                read: super::READ_ON,
                carrier_published: false,
                says: "another party's probe (2026-02-11): /track-and-trace/v3/events (DCSA 3.0.0-Beta-1, Consumer-Key), B/L, booking and container lookups, page headers, rate limits unpublished",
            },
            Source {
                url: "https://raw.githubusercontent.com/api-evangelist/maersk-line/refs/heads/main/openapi/maersk-track-and-trace-api-openapi.yml",
                read: super::READ_ON,
                carrier_published: false,
                says: "another party's OpenAPI of the API: server https://api.maersk.com, /track-and-trace-private/events, Consumer-Key header, equipmentReference / transportDocumentReference / carrierBookingReference",
            },
        ],
        status: Status::PartlyConfirmed,
    },
    CarrierProfile {
        name: "hapag-lloyd",
        line: "Hapag-Lloyd",
        scacs: &["HLCU"],
        portal: Some("https://api-portal.hlag.com"),
        base_url: Some("https://api.hlag.com/hlag/external"),
        format: Format::Dcsa {
            version: Version::V2_2,
        },
        auth: ProfileAuth::Headers {
            headers: &[
                HeaderCredential {
                    header: "X-IBM-Client-Id",
                    credential: "client_id",
                },
                HeaderCredential {
                    header: "X-IBM-Client-Secret",
                    credential: "client_secret",
                },
            ],
        },
        identifiers: "bill of lading (transportDocumentReference), booking (carrierBookingReference), container (equipmentReference); at least one",
        paging: "limit (default 100) and sort parameters",
        rate_limit: "by plan: Tryout 100 calls a day and 10 a minute, Default 6,000 a day and 10 a minute, Premium 100,000 a day and 150 a minute",
        gaps: &[
            "Track & Trace is labelled BETA (DCSA 2.2.4) and may differ from the website",
            "no push: event subscriptions are 'not yet' offered",
            "shipment events only ISSU and CONF; document types only BKG and TRD",
            "no retractedEventID, changeRemark or delayReasonCode in its specification",
            "the mock server (https://mock.api-portal.hlag.com/v2/events) answers an older event shape",
        ],
        credentials_howto: "Register at api-portal.hlag.com (Hapag-Lloyd verifies the account), create an application for its Client ID and Client Secret, and request a subscription to Track & Trace.",
        sources: &[
            Source {
                url: "https://doc.api-portal.hlag.com/01.basic-knowledge/getting-started.html",
                read: super::READ_ON,
                carrier_published: true,
                says: "registration, verification by Hapag-Lloyd, an application gives the ClientID and Client Secret, subscription requests",
            },
            Source {
                url: "https://github.com/samjhecht/steamship-integrations/blob/1087a6b228cfd87b447ca752e5e40e8ac9d600c4/docs/carriers/hapag-lloyd/api-inventory.md",
                read: super::READ_ON,
                carrier_published: false,
                says: "another party's reading (2026-02-11) of the OpenAPI at api-portal.hlag.com/v1/apis: servers https://api.hlag.com/hlag/external/v2/events and the mock, X-IBM-Client-Id and X-IBM-Client-Secret headers, DCSA TNT 2.2.4 BETA, the three references, limit and sort, rate-limit plans, no subscriptions",
            },
            Source {
                url: "https://github.com/samjhecht/steamship-integrations/blob/b911b9b35a7902484af94ded607ab65b4bead324/docs/carriers/hapag-lloyd/review-findings.md",
                read: super::READ_ON,
                carrier_published: false,
                says: "the same party's review: servers, headers, plans, BETA note and the 'not yet' on push checked against the specification; the mock's older event shape",
            },
        ],
        status: Status::PartlyConfirmed,
    },
    CarrierProfile {
        name: "cma-cgm",
        line: "CMA CGM (with ANL and APL; CNC not confirmed)",
        scacs: &["CMDU", "ANNU", "APLU"],
        portal: Some("https://api-portal.cma-cgm.com"),
        base_url: None,
        format: Format::Dcsa {
            version: Version::V2_2,
        },
        auth: ProfileAuth::Headers {
            headers: &[HeaderCredential {
                header: "KeyId",
                credential: "api_key",
            }],
        },
        identifiers: "bill of lading, booking, container (parameter names behind the portal's login)",
        paging: "DCSA page headers and limit, per another party's reading",
        rate_limit: "per application, numbers not published; 429 with retry-after (3600 s seen); some answers are billed",
        gaps: &[
            "the host and the events path are behind the portal's login; another party reads GET /events, not /v2/events, which boxtrack's client would not reach without a matching url",
            "the public key tier omits inland, rail and GPS events; those need OAuth2 (token https://auth.cma-cgm.com/as/token.oauth2, 299 s tokens, scopes per endpoint), not in this profile",
            "no shipment events and no DCSA subscriptions; CMA CGM pushes in its own format",
            "CNC's SCAC is not in the reference carrier data and is not served here",
        ],
        credentials_howto: "Register on api-portal.cma-cgm.com for the free trial; the API key (KeyId) arrives in 2-3 days and works a month, then a subscription is needed.",
        sources: &[
            Source {
                url: "https://github.com/samjhecht/steamship-integrations/blob/1826d1a4d9bc2190ab4f1d32902e8a0c24a873aa/docs/carriers/cma-cgm/api-inventory.md",
                read: super::READ_ON,
                carrier_published: false,
                says: "another party's reading (2026-02-17) of api-portal.cma-cgm.com and its usage guide: KeyId header for public APIs, OAuth2 at auth.cma-cgm.com for private ones, DCSA TNT 2.2.0 GET /events, paging, 429 retry-after, trial and approval times, group brands APL, ANL, CNC",
            },
            Source {
                url: "https://blogs.tradlinx.com/how-cma-cgm-container-tracking-actually-works-what-the-portal-shows-what-it-doesnt-and-what-the-events-mean/",
                read: super::READ_ON,
                carrier_published: false,
                says: "a free API-key tier and a private OAuth2 tier; APL, ANL, CNC share CMA CGM's tracking back end",
            },
        ],
        status: Status::NotConfirmed {
            why: "no CMA CGM page reached; base URL and path behind the portal's login",
        },
    },
    CarrierProfile {
        name: "one",
        line: "Ocean Network Express (ONE)",
        scacs: &["ONEY"],
        portal: Some("https://developers.one-line.com"),
        base_url: None,
        format: Format::NotConfirmed {
            why: "another party reports DCSA Track & Trace 2.2; no ONE page reached",
        },
        auth: ProfileAuth::NotConfirmed {
            why: "the portal's API Auth page (developers.one-line.com/api-auth) could not be read",
        },
        identifiers: "not confirmed (bill of lading, booking and container on ONE's web tracking)",
        paging: "not confirmed",
        rate_limit: "not confirmed",
        gaps: &["everything technical is behind the portal's registration"],
        credentials_howto: "Create an account at developers.one-line.com/get-started; what follows is not published.",
        sources: &[
            Source {
                url: "https://github.com/samjhecht/steamship-integrations/blob/210719e2bd8e53a9436c1ed111f93c5d42a1eb6a/docs/carriers/one/api-inventory.md",
                read: super::READ_ON,
                carrier_published: false,
                says: "another party (2026-02-17): developers.one-line.com exists, is rendered in the browser and needs registration; auth, version and endpoints unknown",
            },
            Source {
                url: "https://expedion.ai/carriers/one/tracking/",
                read: super::READ_ON,
                carrier_published: false,
                says: "ONE exposes tracking through a DCSA T&T v2.2 API at developers.one-line.com",
            },
        ],
        status: Status::NotConfirmed {
            why: "base URL, authentication and version not published outside the portal",
        },
    },
    CarrierProfile {
        name: "evergreen",
        line: "Evergreen (ShipmentLink)",
        scacs: &["EGLV"],
        portal: Some("https://www.shipmentlink.com/_ec/APIPORTAL_Home"),
        base_url: None,
        format: Format::Dcsa {
            version: Version::V2_2,
        },
        auth: ProfileAuth::NotConfirmed {
            why: "a client id and secret are exchanged for a JWT at a Token URL sent with the approval; not confirmed to be RFC 6749 client credentials",
        },
        identifiers: "not confirmed (booking and container filters seen in its 2.2 specification)",
        paging: "not confirmed",
        rate_limit: "not published",
        gaps: &[
            "the Token URL and Event URL are sent in the approval letter, not published",
            "calls must come from the IP address given in the application",
            "only events after the service's launch for you are sent, no history",
            "examples show eventClassifierCode PLAN where DCSA says PLN",
            "Track & Trace is free; others not documented",
        ],
        credentials_howto: "Fill in the API service application on the ShipmentLink API portal; Evergreen verifies it and sends the Client ID, secret, Token URL and Event URL.",
        sources: &[
            Source {
                url: "https://github.com/samjhecht/steamship-integrations/blob/82d56541e4286b9d30a1dffda4d57e6a52c34a56/docs/carriers/evergreen/api-inventory.md",
                read: super::READ_ON,
                carrier_published: false,
                says: "another party's reading (2026-02-11) of the ShipmentLink API portal, FAQ and Swagger: DCSA TNT 2.2 at /tnt/v2/events, JWT from client id and secret, IP allow-list, approval flow, PLAN vs PLN",
            },
            Source {
                url: "https://github.com/samjhecht/steamship-integrations/blob/b911b9b35a7902484af94ded607ab65b4bead324/docs/carriers/evergreen/review-findings.md",
                read: super::READ_ON,
                carrier_published: false,
                says: "the same party's review quoting the FAQ: JWT token, IP address check, Track & Trace free, only events after launch",
            },
        ],
        status: Status::NotConfirmed {
            why: "base URL and token exchange are given per customer",
        },
    },
    CarrierProfile {
        name: "msc",
        line: "MSC",
        scacs: &["MSCU", "MEDU"],
        portal: Some("https://developerportal.msc.com"),
        base_url: None,
        format: Format::Dcsa {
            version: Version::V2_2,
        },
        auth: ProfileAuth::NotConfirmed {
            why: "given during onboarding, not published",
        },
        identifiers: "not confirmed (DCSA 2.2: bill of lading, booking, container)",
        paging: "not confirmed",
        rate_limit: "not published; setup and maintenance fees may apply",
        gaps: &[
            "production access only through MSC's Direct Integration onboarding",
            "push goes through Azure Service Bus, not DCSA callbacks",
        ],
        credentials_howto: "Submit MSC's Direct Integration request form; MSC's specialists onboard you and issue credentials after testing in their sandbox.",
        sources: &[Source {
            url: "https://github.com/samjhecht/steamship-integrations/blob/d21b7fb3d3aadbe361dfa00f9f81250ade77d38b/docs/carriers/msc/api-inventory.md",
            read: super::READ_ON,
            carrier_published: false,
            says: "another party's reading (2026-02-11) of developerportal.msc.com and MSC's Direct Integrations page: DCSA T&T v2.2, onboarding by request form, sandbox, Azure Service Bus push, auth not public",
        }],
        status: Status::NotConfirmed {
            why: "base URL and authentication given only during onboarding",
        },
    },
    CarrierProfile {
        name: "zim",
        line: "ZIM",
        scacs: &["ZIMU"],
        portal: Some("https://api.zim.com"),
        base_url: None,
        format: Format::NotConfirmed {
            why: "ZIM adopted DCSA Track & Trace; version and paths are behind the portal's login",
        },
        auth: ProfileAuth::NotConfirmed {
            why: "an API token from an Azure API Management portal; header not confirmed",
        },
        identifiers: "not confirmed",
        paging: "not confirmed",
        rate_limit: "calls per minute and per day set for each token, not published",
        gaps: &["the documentation is behind the portal's login"],
        credentials_howto: "Sign up at api.zim.com and apply for an API token; ZIM approves the organisation.",
        sources: &[Source {
            url: "https://github.com/samjhecht/steamship-integrations/blob/210719e2bd8e53a9436c1ed111f93c5d42a1eb6a/docs/carriers/zim/api-inventory.md",
            read: super::READ_ON,
            carrier_published: false,
            says: "another party (2026-02-17): api.zim.com (Azure API Management), token per approved organisation, rate limits per token, support page",
        }],
        status: Status::NotConfirmed {
            why: "nothing technical published outside the portal",
        },
    },
    CarrierProfile {
        name: "hmm",
        line: "HMM",
        scacs: &["HDMU"],
        portal: Some("https://apiportal.hmm21.com"),
        base_url: None,
        format: Format::Own {
            what: "GET /gateway/dcsaCargoTracking/v1/cargo-tracking-dcsa answers DCSA-like events but needs carrierBookingReference and equipmentReference together",
        },
        auth: ProfileAuth::NotConfirmed {
            why: "an API key in a header, name not confirmed",
        },
        identifiers: "booking and container together; no bill of lading",
        paging: "none documented",
        rate_limit: "per API (the port-to-port schedule: 300 calls an hour); 429 with Retry-After",
        gaps: &["no push", "no lookup by bill of lading"],
        credentials_howto: "Sign up at apiportal.hmm21.com; an administrator approves the account, then apply for the Track and Trace API.",
        sources: &[Source {
            url: "https://github.com/samjhecht/steamship-integrations/blob/1826d1a4d9bc2190ab4f1d32902e8a0c24a873aa/docs/carriers/hmm/api-inventory.md",
            read: super::READ_ON,
            carrier_published: false,
            says: "another party's reading (2026-02-17) of apiportal.hmm21.com: the tracking path and its two required parameters, API key auth, approval flow, limits, no webhooks",
        }],
        status: Status::NotConfirmed {
            why: "host and header not confirmed; its path is not DCSA's",
        },
    },
    CarrierProfile {
        name: "yang-ming",
        line: "Yang Ming",
        scacs: &["YMLU", "YMPR", "YMSG", "YMJA"],
        portal: Some("https://www.yangming.com/en/esolution/digital_solution/api_introduction"),
        base_url: None,
        format: Format::Dcsa {
            version: Version::V2_2,
        },
        auth: ProfileAuth::NotConfirmed {
            why: "given after Yang Ming accepts an application",
        },
        identifiers: "not confirmed",
        paging: "not confirmed",
        rate_limit: "not published",
        gaps: &["no public technical documentation"],
        credentials_howto: "Press Apply API on Yang Ming's API introduction page; Yang Ming contacts you.",
        sources: &[Source {
            url: "https://github.com/samjhecht/steamship-integrations/blob/599bbee2a9fe321eb24bf083256b66a3c867ae23/docs/carriers/yang-ming/api-inventory.md",
            read: super::READ_ON,
            carrier_published: false,
            says: "another party (2026-02-17): Yang Ming's API page references DCSA T&T v2.2; access by application only; no endpoints published",
        }],
        status: Status::NotConfirmed {
            why: "base URL and authentication given only after application",
        },
    },
    CarrierProfile {
        name: "cosco",
        line: "COSCO Shipping Lines (not OOCL)",
        scacs: &["COSU"],
        portal: Some("https://github.com/cop-cos/COP"),
        base_url: Some("https://api.lines.coscoshipping.com/service"),
        format: Format::Adapter {
            name: "cosco_cop",
            what: "COP cargo tracking: GET /info/tracking/{number}?numberType=bl|bkg|cntr, JSON with places by name and local times without an offset",
        },
        auth: ProfileAuth::CoscoHmac,
        identifiers: "bill of lading, booking, container (numberType bl, bkg, cntr)",
        paging: "none",
        rate_limit: "1,000 calls a day and 30,000 a month per account; request bodies under 1 MB",
        gaps: &[
            "not DCSA; places are names (resolved to boxtrack's ports where it has them) and times carry no offset (read at the port's clock, as UTC where the port is unknown)",
            "a bill's or a booking's answer gives each container's latest status only (its vessel legs in full), so boxtrack asks each box's current trip apart, one call a box",
            "no terminal codes: the terminal feeds are not asked for its boxes",
            "OOCL (OOLU) has no public tracking API found and is not served",
            "the platform is in trial operation",
        ],
        credentials_howto: "E-mail a residency application to the COP administration team (MicroService_Mgmt@coscon.com); after review (up to 15 working days) the ApiKey and SecretKey are e-mailed.",
        sources: &[
            Source {
                url: "https://github.com/cop-cos/COP/blob/0cc314472a4c5e9f5fd752772ad32de79f71142e/README_en.md",
                read: super::READ_ON,
                carrier_published: true,
                says: "production https://api.lines.coscoshipping.com/service, test https://api-pp.lines.coscoshipping.com/service, HMAC auth with ApiKey and SecretKey, residency application, 1,000 a day and 30,000 a month, 1 MB bodies, trial operation",
            },
            Source {
                url: "https://github.com/cop-cos/COP/blob/0331e847b28ecdf0d15b61b290ed101b7a6b373d/docs/info-cargotracking.md",
                read: super::READ_ON,
                carrier_published: true,
                says: "GET /info/tracking/{number}?numberType=bl, bkg or cntr and the answer's shape",
            },
            Source {
                url: "https://github.com/cop-cos/COP/blob/0331e847b28ecdf0d15b61b290ed101b7a6b373d/docs/info-cargotracking-en.md",
                read: super::READ_ON,
                carrier_published: true,
                says: "the answers' examples for a bill, a booking, a container and a number not found (fixtures/cosco)",
            },
            Source {
                url: "https://github.com/cop-cos/COP/blob/98c9ed012518ebd58064802a770f68db6173ce15/README.md",
                read: super::READ_ON,
                carrier_published: true,
                says: "the signature: X-Coscon-Date (at most 2 minutes off), X-Coscon-Digest, X-Coscon-Content-Md5 and X-Coscon-Hmac (a nonce), X-Coscon-Authorization (hmac-sha1 over date, digest, nonce and the request line); only HTTP/1.1",
            },
            Source {
                url: "https://github.com/samjhecht/steamship-integrations/blob/1826d1a4d9bc2190ab4f1d32902e8a0c24a873aa/docs/carriers/oocl/api-inventory.md",
                read: super::READ_ON,
                carrier_published: false,
                says: "another party (2026-02-17): OOCL publishes no tracking API; COSCO's COP does not cover OOCL",
            },
        ],
        status: Status::Documented,
    },
];
