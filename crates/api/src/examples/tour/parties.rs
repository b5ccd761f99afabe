//! The tour's parties: one made, listed, read and renamed.

use super::{Tour, body, id_of};

impl Tour {
    /// Parties.
    pub(super) async fn parties(&mut self) {
        let t = self;
        // parties
        let party = t
            .post("/v2/parties", "/v2/parties", body("party: new", &[]))
            .await;
        let party = id_of(&party);
        t.get("/v2/parties", "/v2/parties").await;
        t.get("/v2/parties/{id}", &format!("/v2/parties/{party}"))
            .await;
        t.patch(
            "/v2/parties/{id}",
            &format!("/v2/parties/{party}"),
            Some(body("party: renamed", &[])),
        )
        .await;
    }
}
