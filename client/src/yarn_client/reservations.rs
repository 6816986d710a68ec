//! [`YarnClient`]'s ReservationSystem calls (Hadoop's `createReservation`,
//! `submitReservation`, `updateReservation`, `deleteReservation` and `listReservations`).

use yarn_proto::ids::ReservationId;
use yarn_proto::pb;

use super::{Protocol, YarnClient};
use crate::{Error, Idempotency};

impl YarnClient {
    /// Hands out a new reservation id (`GetNewReservation`; a lost reply only wastes an id).
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`](crate::RmClient::call); [`Error::MissingResponseField`] or
    /// [`Error::InvalidResponse`] when the reply carries no valid id.
    pub async fn create_reservation(&self) -> Result<ReservationId, Error> {
        let reply = self
            .call(
                Idempotency::Idempotent,
                pb::GetNewReservationRequestProto {},
                |mut rm: Protocol, request| async move { rm.get_new_reservation(request).await },
            )
            .await?;
        let id = reply
            .reservation_id
            .ok_or_else(|| self.missing("GetNewReservation", "reservation_id"))?;
        ReservationId::try_from(id).map_err(|err| Error::InvalidResponse {
            rm_id: self.client.current_target().0,
            rpc: "GetNewReservation",
            field: "reservation_id",
            value: err.to_string(),
        })
    }

    /// Submits a reservation; returns once it is booked. Deduplicated by its id, so resent
    /// after a lost reply.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`](crate::RmClient::call): the leader's refusal names the field,
    /// or why the plan has no room or the queue's sharing policy refuses it.
    pub async fn submit_reservation(
        &self,
        request: pb::ReservationSubmissionRequestProto,
    ) -> Result<(), Error> {
        self.call(
            Idempotency::Idempotent,
            request,
            |mut rm: Protocol, request| async move { rm.submit_reservation(request).await },
        )
        .await?;
        Ok(())
    }

    /// Replaces a reservation's definition (placing the same one again changes nothing).
    ///
    /// # Errors
    ///
    /// As [`submit_reservation`](Self::submit_reservation).
    pub async fn update_reservation(
        &self,
        request: pb::ReservationUpdateRequestProto,
    ) -> Result<(), Error> {
        self.call(
            Idempotency::Idempotent,
            request,
            |mut rm: Protocol, request| async move { rm.update_reservation(request).await },
        )
        .await?;
        Ok(())
    }

    /// Deletes a reservation. Not resent after a lost reply: the second would find it gone.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`](crate::RmClient::call); an unknown id as NOT_FOUND.
    pub async fn delete_reservation(&self, id: ReservationId) -> Result<(), Error> {
        let request = pb::ReservationDeleteRequestProto {
            reservation_id: Some(id.into()),
        };
        self.call(
            Idempotency::NotIdempotent,
            request,
            |mut rm: Protocol, request| async move { rm.delete_reservation(request).await },
        )
        .await?;
        Ok(())
    }

    /// The reservations `request` selects.
    ///
    /// # Errors
    ///
    /// Those of [`RmClient::call`](crate::RmClient::call).
    pub async fn list_reservations(
        &self,
        request: pb::ReservationListRequestProto,
    ) -> Result<Vec<pb::ReservationAllocationStateProto>, Error> {
        let reply = self
            .call(
                Idempotency::Idempotent,
                request,
                |mut rm: Protocol, request| async move { rm.list_reservations(request).await },
            )
            .await?;
        Ok(reply.reservations)
    }
}
