//! The container resource's text (`boxtrack://container/{id}`): `get_container`'s answer as
//! compact Markdown.

use boxtrack_app::containers;
use boxtrack_app::model::Account;
use boxtrack_http::Front;
use boxtrack_views::jsonapi::At;
use boxtrack_views::tracking::HoldView;
use uuid::Uuid;

use super::container::{ContainerAnswer, get, local};
use super::error::ToolError;

/// The container resource's text: a compact Markdown summary of `get_container`'s answer
/// (status, equipment, location, last free days, fees, holds, rail), times on the port's
/// clock (the inland destination's for rail times), `rail_zone` the destination's zone.
pub fn markdown(a: &ContainerAnswer, rail_zone: Option<&str>) -> String {
    let zone = a.location.pod_timezone.as_deref();
    let when = |t: &Option<At>, z: Option<&str>| local(t.as_ref(), z);
    let equipment = match (a.equipment.length, a.equipment.kind.as_deref()) {
        (Some(l), Some(t)) if l > 0 => format!("{l}' {t}"),
        (Some(l), None) if l > 0 => format!("{l}'"),
        (_, Some(t)) => t.to_string(),
        _ => "Unknown".to_string(),
    };
    let d = &a.demurrage;
    let fees = match d.fees_at_pod_terminal.as_deref() {
        None => "Not reported".to_string(),
        Some([]) => "None".to_string(),
        Some(list) => match (d.fees_total_amount, d.fees_currency_code.as_deref()) {
            (Some(t), Some(c)) => format!("{} (total {t:.2} {c})", list.len()),
            (Some(t), None) => format!("{} (total {t:.2})", list.len()),
            _ => list.len().to_string(),
        },
    };
    let holds = match d.holds_at_pod_terminal.as_deref().map(<[HoldView]>::len) {
        None => "Not reported".to_string(),
        Some(0) => "None".to_string(),
        Some(n) => n.to_string(),
    };
    let mut text = format!(
        "# Container {number}\n\n**ID:** `{id}`\n**Status:** {status}\n**Equipment:** {equipment}\n",
        number = a.container_number,
        id = a.id,
        status = a.status,
    );
    if let Some(z) = zone {
        text.push_str(&format!("**Terminal Timezone:** {z}\n"));
    }
    text.push_str(&format!(
        "\n## Location & Availability\n\n- **Available for Pickup:** {avail}\n- **Current Location:** {loc}\n- **POD Arrived:** {arrived}\n- **POD Discharged:** {discharged}\n",
        avail = match a.location.available_for_pickup {
            Some(true) => "Yes",
            Some(false) => "No",
            None => "Unknown",
        },
        loc = a.location.current_location.as_deref().unwrap_or("Unknown"),
        arrived = a.location.pod_arrived_at_local,
        discharged = a.location.pod_discharged_at_local,
    ));
    text.push_str(&format!(
        "\n## Demurrage & Fees\n\n- **Last Free Day (LFD):** {lfd}\n- **LFD (Terminal):** {terminal}\n- **LFD (Rail):** {rail}\n- **LFD (Line):** {line}\n- **Pickup Appointment:** {appointment}\n- **Fees:** {fees}\n- **Holds:** {holds}\n",
        lfd = d.pickup_lfd_local,
        terminal = when(&d.last_free_days.terminal, zone),
        rail = when(&d.last_free_days.rail, rail_zone.or(zone)),
        line = when(&d.last_free_days.line, zone),
        appointment = when(&d.pickup_appointment_at, zone),
    ));
    if d.urgency_suppressed {
        text.push_str(&format!(
            "- **LFD Urgency:** Unavailable ({})\n",
            d.urgency_reason.as_deref().unwrap_or("not known")
        ));
    } else {
        text.push_str(&format!(
            "- **LFD Urgency:** {}{}\n",
            d.urgency,
            d.days_until_lfd
                .map_or(String::new(), |n| format!(" ({n} days until the LFD)"))
        ));
    }
    if let Some(ch) = &a.charges {
        text.push_str(&super::charges::markdown(ch));
    }
    if let Some(carrier) = a.rail.pod_rail_carrier.as_deref() {
        let rz = rail_zone.or(zone);
        text.push_str(&format!(
            "\n## Rail Information\n\n- **Rail Carrier:** {carrier}\n- **Rail Loaded:** {loaded}\n- **Destination ETA:** {eta}\n- **Destination ATA:** {ata}\n",
            loaded = when(&a.rail.pod_rail_loaded_at, zone),
            eta = when(&a.rail.destination_eta, rz),
            ata = when(&a.rail.destination_ata, rz),
        ));
    }
    text
}

/// The container resource (`boxtrack://container/{id}`): [`markdown`] of its answer.
pub async fn resource_text(
    state: &Front,
    account: &Account,
    id: Uuid,
) -> Result<String, ToolError> {
    let answer = get(state, account, id, &[]).await?;
    let rail_zone = match containers::show(&state.ctx.db, account.id, id, false).await {
        Ok(Some(shown)) => shown
            .shipment
            .and_then(|s| s.route.destination_timezone.clone()),
        _ => None,
    };
    Ok(markdown(&answer, rail_zone.as_deref()))
}
