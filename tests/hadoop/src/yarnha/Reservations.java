package yarnha;

import java.util.Collections;
import java.util.List;

import org.apache.hadoop.yarn.api.protocolrecords.ReservationListResponse;
import org.apache.hadoop.yarn.api.protocolrecords.ReservationDeleteRequest;
import org.apache.hadoop.yarn.api.protocolrecords.ReservationListRequest;
import org.apache.hadoop.yarn.api.protocolrecords.ReservationSubmissionRequest;
import org.apache.hadoop.yarn.api.records.ReservationAllocationState;
import org.apache.hadoop.yarn.api.records.ReservationDefinition;
import org.apache.hadoop.yarn.api.records.ReservationId;
import org.apache.hadoop.yarn.api.records.ReservationRequest;
import org.apache.hadoop.yarn.api.records.ReservationRequestInterpreter;
import org.apache.hadoop.yarn.api.records.ReservationRequests;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceAllocationRequest;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The ReservationSystem through YarnClient: creates a reservation id, submits two gangs of
 * 1 GB containers for ten minutes an hour from now to the queue given as the only argument,
 * lists the queue's reservations with their allocations, submits a definition whose deadline
 * comes before its arrival (expected to be refused), deletes the reservation and lists again.
 * Every result is printed as a line `KEY value...`.
 *
 * Exit codes: 0 done, 1 an exception (printed as `ERROR class: message`), 64 bad arguments.
 */
public final class Reservations {
    private static final long MINUTE = 60_000L;

    public static void main(String[] argv) {
        if (argv.length != 1) {
            System.err.println("usage: Reservations QUEUE");
            System.exit(64);
            return;
        }
        String queue = argv[0];
        YarnClient client = YarnClient.createYarnClient();
        int code = 0;
        try {
            client.init(new YarnConfiguration());
            client.start();
            run(client, queue);
        } catch (Exception e) {
            SubmitShellApp.printError(e);
            code = 1;
        } finally {
            client.stop();
        }
        System.out.flush();
        System.exit(code);
    }

    private static ReservationDefinition definition(long arrival, long deadline) {
        ReservationRequest gangs = ReservationRequest.newInstance(
                Resource.newInstance(1024, 1), 2, 2, 10 * MINUTE);
        return ReservationDefinition.newInstance(arrival, deadline,
                ReservationRequests.newInstance(Collections.singletonList(gangs),
                        ReservationRequestInterpreter.R_ALL),
                "java");
    }

    private static void run(YarnClient client, String queue) throws Exception {
        ReservationId id = client.createReservation().getReservationId();
        System.out.println("RESERVATION_ID " + id);
        long arrival = (System.currentTimeMillis() / 1000 + 3600) * 1000;
        client.submitReservation(ReservationSubmissionRequest.newInstance(
                definition(arrival, arrival + 60 * MINUTE), queue, id));
        System.out.println("SUBMITTED " + id + " " + arrival);
        list(client, queue);

        ReservationId other = client.createReservation().getReservationId();
        try {
            client.submitReservation(ReservationSubmissionRequest.newInstance(
                    definition(arrival, arrival - MINUTE), queue, other));
            System.out.println("BACKWARDS_ACCEPTED " + other);
        } catch (Exception e) {
            System.out.println("BACKWARDS_REFUSED " + e.getClass().getName() + ": "
                    + SubmitShellApp.oneLine(e.getMessage()));
        }

        client.deleteReservation(ReservationDeleteRequest.newInstance(id));
        System.out.println("DELETED " + id);
        list(client, queue);
    }

    private static void list(YarnClient client, String queue) throws Exception {
        ReservationListResponse listed = client.listReservations(
                ReservationListRequest.newInstance(queue, "", 0, -1, true));
        List<ReservationAllocationState> states = listed.getReservationAllocationState();
        System.out.println("LISTED " + states.size());
        for (ReservationAllocationState state : states) {
            StringBuilder line = new StringBuilder("RESERVATION " + state.getReservationId()
                    + " " + state.getUser());
            for (ResourceAllocationRequest piece : state.getResourceAllocationRequests()) {
                line.append(" ").append(piece.getStartTime()).append("-")
                        .append(piece.getEndTime()).append(":")
                        .append(piece.getCapability().getMemorySize());
            }
            System.out.println(line);
        }
    }
}
