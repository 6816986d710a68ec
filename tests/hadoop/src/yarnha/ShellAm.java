package yarnha;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.ContainerUpdateType;
import org.apache.hadoop.yarn.api.records.ExecutionType;
import org.apache.hadoop.yarn.api.records.ExecutionTypeRequest;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.UpdateContainerError;
import org.apache.hadoop.yarn.api.records.UpdateContainerRequest;
import org.apache.hadoop.yarn.api.records.UpdatedContainer;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.NMClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * An ApplicationMaster on the synchronous AMRMClient and NMClient: registers, asks for
 * `--containers N` containers of 128 MB and 1 vcore (`--execution-type`, default GUARANTEED,
 * enforced), starts `--command CMD` (default `exit 0`)
 * in each, waits until all of them completed, and unregisters SUCCEEDED when every exit status
 * was 0, FAILED with the statuses otherwise.
 *
 * With `--resize-to MB` it resizes the first container it starts while it runs: asks the
 * ResourceManager for an increase to MB, brings the increased container to its NodeManager
 * (NMClient.updateContainerResource) and waits until the NodeManager reports the new size, then
 * asks for a decrease back to 128 MB, which the NodeManager hears of from the ResourceManager,
 * and waits until it reports that size too. Each update prints `UPDATED type id MB vVERSION`,
 * each size seen at the NodeManager `NM_SIZE id MB`, each refusal `UPDATE_ERROR reason`.
 *
 * It authenticates with the AMRMToken the ResourceManager put in the container's credentials
 * file (HADOOP_TOKEN_FILE_LOCATION, read by UserGroupInformation); the NMTokens for the
 * NodeManagers arrive in allocate responses (NMTokenCache).
 *
 * Exit codes: 0 unregistered SUCCEEDED, 1 unregistered FAILED (or an exception), 2 the
 * deadline (`--deadline-secs`, default 120) passed.
 */
public final class ShellAm {
    public static void main(String[] argv) throws Exception {
        String[] withMode = new String[argv.length + 1];
        withMode[0] = "am";
        System.arraycopy(argv, 0, withMode, 1, argv.length);
        Args args = new Args(withMode);
        int wanted = args.getInt("containers", 1);
        String command = args.get("command", "exit 0");
        ExecutionType executionType =
                ExecutionType.valueOf(args.get("execution-type", "GUARANTEED"));
        long deadline = System.currentTimeMillis() + 1000L * args.getInt("deadline-secs", 120);
        int resizeTo = args.getInt("resize-to", 0);
        boolean resizing = resizeTo > 0;

        YarnConfiguration conf = new YarnConfiguration();
        AMRMClient<ContainerRequest> rm = AMRMClient.createAMRMClient();
        rm.init(conf);
        rm.start();
        NMClient nm = NMClient.createNMClient();
        nm.init(conf);
        nm.start();

        String host = System.getenv().getOrDefault("NM_HOST", "localhost");
        rm.registerApplicationMaster(host, 0, "");
        System.out.println("REGISTERED on " + host);

        Deque<ContainerRequest> pending = new ArrayDeque<>();
        for (int i = 0; i < wanted; i++) {
            ContainerRequest request = new ContainerRequest(Resource.newInstance(128, 1), null,
                    null, Priority.newInstance(0), 0, true, null,
                    ExecutionTypeRequest.newInstance(executionType, true));
            rm.addContainerRequest(request);
            pending.add(request);
        }

        Set<ContainerId> started = new HashSet<>();
        int completed = 0;
        StringBuilder failures = new StringBuilder();
        boolean timedOut = false;
        while (completed < wanted) {
            if (System.currentTimeMillis() > deadline) {
                timedOut = true;
                break;
            }
            AllocateResponse response = rm.allocate((float) completed / wanted);
            for (Container container : response.getAllocatedContainers()) {
                if (pending.isEmpty()) {
                    rm.releaseAssignedContainer(container.getId());
                    continue;
                }
                rm.removeContainerRequest(pending.poll());
                ContainerLaunchContext launch = ContainerLaunchContext.newInstance(
                        Collections.emptyMap(), Collections.emptyMap(),
                        Collections.singletonList(
                                command + " 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr"),
                        null, null, null);
                nm.startContainer(container, launch);
                started.add(container.getId());
                System.out.println("STARTED " + container.getId() + " on "
                        + container.getNodeId() + " " + container.getExecutionType());
                if (resizing) {
                    resizing = false;
                    rm.requestContainerUpdate(container, UpdateContainerRequest.newInstance(
                            container.getVersion(), container.getId(),
                            ContainerUpdateType.INCREASE_RESOURCE,
                            Resource.newInstance(resizeTo, 1), null));
                }
            }
            for (UpdatedContainer updated : response.getUpdatedContainers()) {
                Container container = updated.getContainer();
                long memory = container.getResource().getMemorySize();
                System.out.println("UPDATED " + updated.getUpdateType() + " "
                        + container.getId() + " " + memory + " v" + container.getVersion());
                if (updated.getUpdateType() == ContainerUpdateType.INCREASE_RESOURCE) {
                    nm.updateContainerResource(container);
                    awaitNodeManagerSize(nm, container, memory, deadline);
                    rm.requestContainerUpdate(container, UpdateContainerRequest.newInstance(
                            container.getVersion(), container.getId(),
                            ContainerUpdateType.DECREASE_RESOURCE,
                            Resource.newInstance(128, 1), null));
                } else {
                    awaitNodeManagerSize(nm, container, memory, deadline);
                }
            }
            for (UpdateContainerError error : response.getUpdateErrors()) {
                System.out.println("UPDATE_ERROR " + error.getReason());
            }
            for (ContainerStatus status : response.getCompletedContainersStatuses()) {
                if (!started.remove(status.getContainerId())) {
                    continue;
                }
                completed++;
                System.out.println("COMPLETED " + status.getContainerId() + " exit "
                        + status.getExitStatus());
                if (status.getExitStatus() != 0) {
                    failures.append(status.getContainerId()).append(" exited ")
                            .append(status.getExitStatus()).append(": ")
                            .append(status.getDiagnostics()).append("; ");
                }
            }
            Thread.sleep(200);
        }

        int code;
        if (timedOut) {
            rm.unregisterApplicationMaster(FinalApplicationStatus.FAILED,
                    "deadline: " + completed + " of " + wanted + " containers completed", "");
            code = 2;
        } else if (failures.length() > 0) {
            rm.unregisterApplicationMaster(FinalApplicationStatus.FAILED, failures.toString(),
                    "");
            code = 1;
        } else {
            rm.unregisterApplicationMaster(FinalApplicationStatus.SUCCEEDED,
                    completed + " containers exited 0", "");
            code = 0;
        }
        System.out.println("UNREGISTERED exit " + code);
        nm.stop();
        rm.stop();
        System.exit(code);
    }

    /** Polls the container's NodeManager until it reports `memory` MB, or the deadline. */
    private static void awaitNodeManagerSize(NMClient nm, Container container, long memory,
            long deadline) throws Exception {
        while (System.currentTimeMillis() < deadline) {
            long reported = nm.getContainerStatus(container.getId(), container.getNodeId())
                    .getCapability().getMemorySize();
            if (reported == memory) {
                System.out.println("NM_SIZE " + container.getId() + " " + reported);
                return;
            }
            Thread.sleep(100);
        }
    }
}
