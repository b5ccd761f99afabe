//! The tour's charges: a tariff and a calendar of the account, a quote by them and the journey's
//! container priced, both deleted.

use super::{Journey, Tour, body, id_of};

impl Tour {
    /// Charges: a tariff and a calendar of the account, a quote by them and the journey's
    /// container priced, both deleted.
    pub(super) async fn charges(&mut self, journey: &Journey) {
        let t = self;
        let tariff = t
            .post("/v2/tariffs", "/v2/tariffs", body("tariff: new", &[]))
            .await;
        let tariff = id_of(&tariff);
        t.get("/v2/tariffs", "/v2/tariffs").await;
        t.get("/v2/tariffs/{id}", &format!("/v2/tariffs/{tariff}"))
            .await;
        let calendar = t
            .post("/v2/calendars", "/v2/calendars", body("calendar: new", &[]))
            .await;
        let calendar = id_of(&calendar);
        t.get("/v2/calendars", "/v2/calendars").await;
        t.get("/v2/calendars/{id}", &format!("/v2/calendars/{calendar}"))
            .await;
        t.post(
            "/v2/charges/quote",
            "/v2/charges/quote",
            body("charges: quote", &[]),
        )
        .await;
        t.get(
            "/v2/containers/{id}/charges",
            &format!("/v2/containers/{}/charges", journey.container),
        )
        .await;
        t.get("/v2/charges/summary", "/v2/charges/summary").await;
        t.post(
            "/v2/charges/audits",
            "/v2/charges/audits",
            body("charges: audit", &[]),
        )
        .await;
        t.delete("/v2/tariffs/{id}", &format!("/v2/tariffs/{tariff}"))
            .await;
        t.delete("/v2/calendars/{id}", &format!("/v2/calendars/{calendar}"))
            .await;
    }
}
