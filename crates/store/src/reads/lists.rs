//! The shipment and container lists.

use super::*;

/// A page of shipments, most recently updated first.
pub async fn shipments(
    db: &Db,
    account_id: Uuid,
    f: &Filter,
    page: &Page,
) -> Result<Listed<ShipmentRow>> {
    shipments_listed(db, account_id, f, page).await
}

/// A page of shipments read as `S`: whole rows ([`ShipmentRow`]) or as rendered
/// ([`RenderedShipment`], each route and state decoded only where its rendered text is not
/// current).
pub async fn shipments_listed<S: ShipmentRead>(
    db: &Db,
    account_id: Uuid,
    f: &Filter,
    page: &Page,
) -> Result<Listed<S>> {
    let mut conds = vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])];
    if let Some(q) = &f.q {
        let l = like(q);
        conds.push(Cond::new(
            "(UPPER(bill_of_lading_number) LIKE ? OR UPPER(CAST(ref_numbers AS TEXT)) LIKE ? OR id IN (SELECT shipment_id FROM containers WHERE account_id = ? AND number LIKE ?))",
            vec![Arg::Text(l.clone()), Arg::Text(l.clone()), Arg::Uuid(account_id), Arg::Text(l)],
        ));
    }
    if let Some(n) = &f.number {
        conds.push(Cond::new(
            "bill_of_lading_number = ?",
            vec![Arg::Text(n.clone())],
        ));
    }
    if let Some(stopped) = f.tracking_stopped {
        conds.push(Cond::new(
            if stopped {
                "tracking_stopped_us IS NOT NULL"
            } else {
                "tracking_stopped_us IS NULL"
            },
            vec![],
        ));
    }
    if let Some(c) = &f.carrier {
        conds.push(Cond::new("scac = ?", vec![Arg::Text(c.clone())]));
    }
    if let Some(c) = f.customer_id {
        conds.push(Cond::new(
            "tracking_request_id IN (SELECT id FROM tracking_requests WHERE account_id = ? AND customer_id = ?)",
            vec![Arg::Uuid(account_id), Arg::Uuid(c)],
        ));
    }
    if let Some(n) = &f.customer_name {
        conds.push(Cond::new(
            "tracking_request_id IN (SELECT t.id FROM tracking_requests t JOIN parties p ON p.account_id = t.account_id AND p.id = t.customer_id WHERE t.account_id = ? AND UPPER(p.company_name) LIKE ?)",
            vec![Arg::Uuid(account_id), Arg::Text(like(n))],
        ));
    }
    if let Some(p) = &f.port {
        conds.push(Cond::new(
            "pod_locode = ?",
            vec![Arg::Text(p.to_ascii_uppercase())],
        ));
    }
    for (v, sql) in [
        (f.updated_start_us, "updated_us >= ?"),
        (f.updated_end_us, "updated_us <= ?"),
    ] {
        if let Some(v) = v {
            conds.push(Cond::new(sql, vec![Arg::I64(v)]));
        }
    }
    for d in &f.dates {
        if let Some(e) = d.field.on_shipment() {
            conds.extend(d.cond_on(e));
        }
    }
    conds.extend(tag_conds(&f.tags, f.tags_all));
    conds.extend(f.texts.iter().filter_map(TextCond::on_shipment));
    if let Some(known) = f.customer_known {
        conds.push(Cond::new(
            if known {
                "tracking_request_id IN (SELECT id FROM tracking_requests WHERE account_id = ? AND customer_id IS NOT NULL)"
            } else {
                "(tracking_request_id IS NULL OR tracking_request_id NOT IN (SELECT id FROM tracking_requests WHERE account_id = ? AND customer_id IS NOT NULL))"
            },
            vec![Arg::Uuid(account_id)],
        ));
    }
    let (sort_col, ascending) = f.sort.on_shipments();
    let spec = ListSpec {
        from: "shipments",
        columns: S::COLUMNS,
        sort_col,
        ascending,
        id_col: "id",
        conds,
    };
    // no filter: the account's maintained count is the total
    let counted = (spec.conds.len() == 1).then_some(("shipments", account_id));
    let in_place = (S::IN_PLACE_COLUMNS, S::in_place_row as _);
    crate::list::list_counted_in_place(db, &spec, page, counted, in_place).await
}

/// A page of containers, most recently updated first.
pub async fn containers(
    db: &Db,
    account_id: Uuid,
    f: &Filter,
    page: &Page,
) -> Result<Listed<ContainerRow>> {
    containers_as(db, account_id, f, page).await
}

/// A page of containers read as `C`: whole rows ([`ContainerRow`]) or as rendered
/// ([`RenderedContainer`], each state decoded only where its rendered text is not current).
pub async fn containers_as<C: ContainerRead>(
    db: &Db,
    account_id: Uuid,
    f: &Filter,
    page: &Page,
) -> Result<Listed<C>> {
    let mut conds = vec![Cond::new("account_id = ?", vec![Arg::Uuid(account_id)])];
    conds.extend(on_containers(account_id, f));
    conds.extend(on_their_shipments(account_id, f));
    conds.extend(on_fees(f));
    let (sort_col, ascending) = f.sort.on_containers();
    let spec = ListSpec {
        from: "containers",
        columns: C::COLUMNS,
        sort_col,
        ascending,
        id_col: "id",
        conds,
    };
    // no filter: the account's maintained count is the total
    let counted = (spec.conds.len() == 1).then_some(("containers", account_id));
    let in_place = (C::IN_PLACE_COLUMNS, C::in_place_row as _);
    crate::list::list_counted_in_place(db, &spec, page, counted, in_place).await
}

/// The conditions of `f` on the container's own columns and state.
fn on_containers(account_id: Uuid, f: &Filter) -> Vec<Cond> {
    let mut conds = Vec::new();
    if let Some(q) = &f.q {
        let l = like(q);
        conds.push(Cond::new(
            // the shipment's reference numbers too (a PO given with the tracking request)
            "(number LIKE ? OR UPPER(CAST(ref_numbers AS TEXT)) LIKE ? OR shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND (UPPER(bill_of_lading_number) LIKE ? OR UPPER(CAST(ref_numbers AS TEXT)) LIKE ?)))",
            vec![
                Arg::Text(l.clone()),
                Arg::Text(l.clone()),
                Arg::Uuid(account_id),
                Arg::Text(l.clone()),
                Arg::Text(l),
            ],
        ));
    }
    if let Some(n) = &f.container_number {
        conds.push(Cond::new("number = ?", vec![Arg::Text(n.clone())]));
    }
    if let Some(s) = &f.current_status {
        conds.push(Cond::new("current_status = ?", vec![Arg::Text(s.clone())]));
    }
    if let Some(r) = f.ready_for_pickup {
        conds.push(Cond::new("ready_for_pickup = ?", vec![Arg::Bool(r)]));
    }
    if let Some(h) = f.on_hold {
        conds.push(Cond::new("on_hold = ?", vec![Arg::Bool(h)]));
    }
    if let Some(set) = f.held_any {
        conds.push(Cond::new("(gates_held & ?) <> 0", vec![Arg::I64(set)]));
    }
    if let Some(set) = f.released_all {
        conds.push(Cond::new(
            "(gates_released & ?) = ?",
            vec![Arg::I64(set), Arg::I64(set)],
        ));
    }
    if let Some(ids) = &f.ids {
        conds.push(if ids.is_empty() {
            Cond::new("1 = 0", vec![])
        } else {
            let marks = vec!["?"; ids.len()].join(", ");
            Cond::owned(
                format!("id IN ({marks})"),
                ids.iter().map(|id| Arg::Uuid(*id)).collect(),
            )
        });
    }
    if !f.statuses.is_empty() {
        // the status is one of the comma-separated list (statuses hold no commas)
        conds.push(Cond::new(
            "(',' || ? || ',') LIKE ('%,' || current_status || ',%')",
            vec![Arg::Text(f.statuses.join(","))],
        ));
    }
    if let Some(known) = f.lfd_known {
        conds.push(Cond::new(
            if known {
                "pickup_lfd_us IS NOT NULL"
            } else {
                "pickup_lfd_us IS NULL"
            },
            vec![],
        ));
    }
    for (v, sql) in [
        (f.lfd_start_us, "pickup_lfd_us >= ?"),
        (f.lfd_end_us, "pickup_lfd_us <= ?"),
        (f.updated_start_us, "updated_us >= ?"),
        (f.updated_end_us, "updated_us <= ?"),
    ] {
        if let Some(v) = v {
            conds.push(Cond::new(sql, vec![Arg::I64(v)]));
        }
    }
    for d in &f.dates {
        conds.extend(d.on_containers(account_id));
    }
    conds.extend(f.custom.iter().filter_map(|c| c.on_containers(account_id)));
    conds
}

/// The conditions of `f` on the container's shipment (scoped to the account's shipments).
fn on_their_shipments(account_id: Uuid, f: &Filter) -> Vec<Cond> {
    let mut conds = Vec::new();
    if let Some(stopped) = f.tracking_stopped {
        // scoped to the account: its shipments only, not every account's
        conds.push(Cond::new(
            if stopped {
                "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND tracking_stopped_us IS NOT NULL)"
            } else {
                "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND tracking_stopped_us IS NULL)"
            },
            vec![Arg::Uuid(account_id)],
        ));
    }
    if let Some(c) = &f.carrier {
        conds.push(Cond::new(
            "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND scac = ?)",
            vec![Arg::Uuid(account_id), Arg::Text(c.clone())],
        ));
    }
    if let Some(c) = f.customer_id {
        conds.push(Cond::new(
            "shipment_id IN (SELECT s.id FROM shipments s JOIN tracking_requests t ON t.account_id = s.account_id AND t.id = s.tracking_request_id WHERE s.account_id = ? AND t.customer_id = ?)",
            vec![Arg::Uuid(account_id), Arg::Uuid(c)],
        ));
    }
    if let Some(n) = &f.customer_name {
        conds.push(Cond::new(
            "shipment_id IN (SELECT s.id FROM shipments s JOIN tracking_requests t ON t.account_id = s.account_id AND t.id = s.tracking_request_id JOIN parties p ON p.account_id = t.account_id AND p.id = t.customer_id WHERE s.account_id = ? AND UPPER(p.company_name) LIKE ?)",
            vec![Arg::Uuid(account_id), Arg::Text(like(n))],
        ));
    }
    if let Some(p) = &f.port {
        conds.push(Cond::new(
            "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND pod_locode = ?)",
            vec![Arg::Uuid(account_id), Arg::Text(p.to_ascii_uppercase())],
        ));
    }
    let shipment_texts: Vec<Cond> = f
        .tags
        .is_empty()
        .then(Vec::new)
        .unwrap_or_else(|| tag_conds(&f.tags, f.tags_all))
        .into_iter()
        .chain(f.texts.iter().filter_map(TextCond::on_shipment))
        .collect();
    if !shipment_texts.is_empty() {
        for c in shipment_texts {
            let mut args = vec![Arg::Uuid(account_id)];
            args.extend(c.args);
            conds.push(Cond::assembled(
                format!(
                    "shipment_id IN (SELECT id FROM shipments WHERE account_id = ? AND {})",
                    c.sql
                ),
                args,
            ));
        }
    }
    if let Some(known) = f.customer_known {
        conds.push(Cond::new(
            if known {
                "shipment_id IN (SELECT s.id FROM shipments s JOIN tracking_requests t ON t.account_id = s.account_id AND t.id = s.tracking_request_id WHERE s.account_id = ? AND t.customer_id IS NOT NULL)"
            } else {
                "shipment_id NOT IN (SELECT s.id FROM shipments s JOIN tracking_requests t ON t.account_id = s.account_id AND t.id = s.tracking_request_id WHERE s.account_id = ? AND t.customer_id IS NOT NULL)"
            },
            vec![Arg::Uuid(account_id)],
        ));
    }
    conds
}

/// The conditions of `f` on the terminal's fees (and holds).
fn on_fees(f: &Filter) -> Vec<Cond> {
    let mut conds = Vec::new();
    // fees: a non-empty list (both backends write an empty one as `[]`)
    const FEES: &str = "CAST(state->'fees' AS TEXT) NOT IN ('[]', 'null')";
    match f.has_fees {
        Some(true) => conds.push(Cond::new(FEES, vec![])),
        Some(false) => conds.push(Cond::assembled(format!("NOT ({FEES})"), vec![])),
        None => {}
    }
    match f.has_fees_or_holds {
        Some(true) => conds.push(Cond::assembled(
            format!("({FEES} OR on_hold = ?)"),
            vec![Arg::Bool(true)],
        )),
        Some(false) => conds.push(Cond::assembled(
            format!("(NOT ({FEES}) AND on_hold = ?)"),
            vec![Arg::Bool(false)],
        )),
        None => {}
    }
    conds
}
