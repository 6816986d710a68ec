package yarnha;

import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationTimeoutsRequest;
import org.apache.hadoop.yarn.api.protocolrecords.UpdateApplicationTimeoutsResponse;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptReport;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ApplicationTimeout;
import org.apache.hadoop.yarn.api.records.ApplicationTimeoutType;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerReport;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeLabel;
import org.apache.hadoop.yarn.api.records.NodeReport;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueConfigurations;
import org.apache.hadoop.yarn.api.records.QueueInfo;
import org.apache.hadoop.yarn.api.records.QueueUserACLInfo;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.api.records.YarnClusterMetrics;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.util.Times;

/**
 * A YarnClient program. The configuration comes from the classpath (put HADOOP_CONF_DIR on it).
 * Every result is printed as a line `KEY value...` for the test harness to read.
 *
 * <pre>
 * submit  --am shell|java|forged [--am-command CMD] [--containers N] [--container-command CMD]
 *         [--execution-type GUARANTEED|OPPORTUNISTIC] [--resize-to MB]
 *         [--forge wrong-password|other-attempt] [--name N] [--type T] [--queue Q]
 *         [--am-memory MB] [--am-classpath CP] [--max-attempts N] [--deadline-secs S]
 *         --expect-state STATE --expect-final STATUS
 *     submits one application, waits for a final state, exits 0 only if it is the expected one
 * kill    [--am-command CMD] [--deadline-secs S]
 *     submits a shell AM (default `sleep 300`), kills it once it has an attempt, expects KILLED
 * lifetime [--am-command CMD] [--lifetime-secs S] [--expire-in-secs E] [--deadline-secs D]
 *     submits a shell AM (default `sleep 300`) asking for a LIFETIME of S seconds (3600), prints
 *     its report's timeout, moves its expiry to E seconds from now (8) with
 *     updateApplicationTimeouts, prints the expiry in force, expects it KILLED at expiry
 * queries
 *     getApplications, getYarnClusterMetrics, getNodeReports, getQueueInfo(default) with its
 *     weight and effective capacities,
 *     getQueueAclsInfo, getClusterNodeLabels, getNodeToLabels, getLabelsToNodes, and
 *     getClusterAttributes,
 *     which yarn-ha does not serve
 * </pre>
 *
 * Exit codes: 0 as expected, 1 an exception (printed as `ERROR class: message`), 2 an
 * unexpected final state, 3 the deadline passed (the application is killed), 64 bad arguments.
 */
public final class SubmitShellApp {
    private static final EnumSet<YarnApplicationState> FINAL =
            EnumSet.of(YarnApplicationState.FINISHED, YarnApplicationState.FAILED,
                    YarnApplicationState.KILLED);

    public static void main(String[] argv) {
        Args args;
        try {
            args = new Args(argv);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(64);
            return;
        }
        YarnClient client = YarnClient.createYarnClient();
        int code;
        try {
            client.init(new YarnConfiguration());
            client.start();
            switch (args.mode) {
                case "submit": code = submit(client, args); break;
                case "kill": code = kill(client, args); break;
                case "lifetime": code = lifetime(client, args); break;
                case "queries": code = queries(client); break;
                default:
                    System.err.println("unknown mode " + args.mode);
                    code = 64;
            }
        } catch (Exception e) {
            printError(e);
            code = 1;
        } finally {
            client.stop();
        }
        System.out.flush();
        System.exit(code);
    }

    static void printError(Throwable e) {
        System.out.println("ERROR " + e.getClass().getName() + ": " + oneLine(e.getMessage()));
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            System.out.println("CAUSE " + cause.getClass().getName() + ": "
                    + oneLine(cause.getMessage()));
        }
        e.printStackTrace();
    }

    static String oneLine(String text) {
        return text == null ? "" : text.replace('\n', ' ').replace('\r', ' ');
    }

    private static int submit(YarnClient client, Args args) throws Exception {
        String expectState = args.require("expect-state");
        String expectFinal = args.require("expect-final");
        ApplicationId id = submitApplication(client, args, amCommand(args));
        ApplicationReport report = awaitFinal(client, id, deadline(args));
        if (report == null) {
            return 3;
        }
        printFinal(report);
        boolean expected = report.getYarnApplicationState().name().equals(expectState)
                && report.getFinalApplicationStatus().name().equals(expectFinal);
        return expected ? 0 : 2;
    }

    private static int kill(YarnClient client, Args args) throws Exception {
        ApplicationId id = submitApplication(client, args,
                shellCommand(args.get("am-command", "sleep 300")));
        long deadline = deadline(args);
        ApplicationReport report = client.getApplicationReport(id);
        while (report.getCurrentApplicationAttemptId() == null
                || !EnumSet.of(YarnApplicationState.ACCEPTED, YarnApplicationState.RUNNING)
                        .contains(report.getYarnApplicationState())) {
            if (System.currentTimeMillis() > deadline || FINAL.contains(
                    report.getYarnApplicationState())) {
                System.out.println("NOT_KILLABLE " + report.getYarnApplicationState());
                return 2;
            }
            Thread.sleep(500);
            report = client.getApplicationReport(id);
        }
        System.out.println("KILLING_FROM " + report.getYarnApplicationState());
        client.killApplication(id);
        report = awaitFinal(client, id, deadline);
        if (report == null) {
            return 3;
        }
        printFinal(report);
        return report.getYarnApplicationState() == YarnApplicationState.KILLED ? 0 : 2;
    }

    private static int lifetime(YarnClient client, Args args) throws Exception {
        ApplicationId id = submitApplication(client, args,
                shellCommand(args.get("am-command", "sleep 300")));
        printTimeout("TIMEOUT", client.getApplicationReport(id));
        long expiry = System.currentTimeMillis() + 1000L * args.getInt("expire-in-secs", 8);
        UpdateApplicationTimeoutsResponse updated = client.updateApplicationTimeouts(
                UpdateApplicationTimeoutsRequest.newInstance(id, Collections.singletonMap(
                        ApplicationTimeoutType.LIFETIME, Times.formatISO8601(expiry))));
        System.out.println("REQUESTED " + Times.formatISO8601(expiry));
        System.out.println("UPDATED " + updated.getApplicationTimeouts()
                .get(ApplicationTimeoutType.LIFETIME));
        printTimeout("TIMEOUT_AFTER_UPDATE", client.getApplicationReport(id));
        ApplicationReport report = awaitFinal(client, id, deadline(args));
        if (report == null) {
            return 3;
        }
        printFinal(report);
        printTimeout("TIMEOUT_AT_END", report);
        return report.getYarnApplicationState() == YarnApplicationState.KILLED ? 0 : 2;
    }

    /** `KEY type expiry remaining` for each timeout of `report`. */
    private static void printTimeout(String key, ApplicationReport report) {
        for (ApplicationTimeout timeout : report.getApplicationTimeouts().values()) {
            System.out.println(key + " " + timeout.getTimeoutType() + " "
                    + timeout.getExpiryTime() + " " + timeout.getRemainingTime());
        }
    }

    private static int queries(YarnClient client) throws Exception {
        List<ApplicationReport> apps = client.getApplications();
        System.out.println("APPLICATIONS " + apps.size());
        for (ApplicationReport app : apps) {
            System.out.println("APPLICATION " + app.getApplicationId() + " "
                    + app.getYarnApplicationState() + " " + app.getFinalApplicationStatus()
                    + " " + app.getApplicationType() + " " + app.getQueue() + " "
                    + app.getUser());
        }
        YarnClusterMetrics metrics = client.getYarnClusterMetrics();
        System.out.println("CLUSTER_NODE_MANAGERS " + metrics.getNumNodeManagers());
        List<NodeReport> nodes = client.getNodeReports(NodeState.RUNNING);
        System.out.println("NODES " + nodes.size());
        for (NodeReport node : nodes) {
            System.out.println("NODE " + node.getNodeId() + " " + node.getNodeState() + " "
                    + node.getCapability().getMemorySize() + " "
                    + node.getCapability().getVirtualCores() + " " + node.getHttpAddress()
                    + " " + String.join(",", new TreeSet<>(node.getNodeLabels())));
        }
        StringBuilder labels = new StringBuilder();
        for (NodeLabel label : client.getClusterNodeLabels()) {
            labels.append(labels.length() == 0 ? "" : ",").append(label);
        }
        System.out.println("NODE_LABELS " + labels);
        for (Map.Entry<NodeId, Set<String>> entry : client.getNodeToLabels().entrySet()) {
            System.out.println("NODE_TO_LABELS " + entry.getKey() + "="
                    + String.join(",", new TreeSet<>(entry.getValue())));
        }
        for (Map.Entry<String, Set<NodeId>> entry : client.getLabelsToNodes().entrySet()) {
            TreeSet<String> ids = new TreeSet<>();
            for (NodeId id : entry.getValue()) {
                ids.add(id.toString());
            }
            System.out.println("LABELS_TO_NODES " + entry.getKey() + "=" + String.join(",", ids));
        }
        QueueInfo queue = client.getQueueInfo("default");
        System.out.println("QUEUE " + queue.getQueueName() + " " + queue.getQueueState() + " "
                + queue.getCapacity() + " " + queue.getMaximumCapacity());
        QueueConfigurations partition = queue.getQueueConfigurations().get("");
        System.out.println("QUEUE_EFFECTIVE " + weight(queue) + " "
                + (partition == null ? "none" : partition.getEffectiveMinCapacity().getMemorySize()
                        + " " + partition.getEffectiveMinCapacity().getVirtualCores() + " "
                        + partition.getEffectiveMaxCapacity().getMemorySize()));
        for (QueueUserACLInfo acl : client.getQueueAclsInfo()) {
            System.out.println("QUEUE_ACL " + acl.getQueueName() + " " + acl.getUserAcls());
        }
        // A method yarn-ha does not serve is refused by name, and the connection carries on.
        try {
            client.getClusterAttributes();
            System.out.println("UNSERVED getClusterAttributes answered");
        } catch (Exception e) {
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            // The server's exception class travels in the RemoteException.
            String className = root instanceof RemoteException
                    ? ((RemoteException) root).getClassName() : root.getClass().getName();
            System.out.println("UNSERVED getClusterAttributes " + className + " "
                    + oneLine(root.getMessage()));
        }
        System.out.println("AFTER_UNSERVED " + client.getYarnClusterMetrics().getNumNodeManagers());
        return 0;
    }

    /** The queue's weight, which Hadoop 3.4 added to QueueInfo; `none` with older clients. */
    private static String weight(QueueInfo queue) {
        try {
            return String.valueOf(QueueInfo.class.getMethod("getWeight").invoke(queue));
        } catch (ReflectiveOperationException e) {
            return "none";
        }
    }

    private static ContainerLaunchContext amCommand(Args args) {
        String am = args.require("am");
        String javaAm;
        switch (am) {
            case "shell":
                return shellCommand(args.get("am-command", "echo hello; exit 0"));
            case "java":
                javaAm = "yarnha.ShellAm --containers " + args.getInt("containers", 1)
                        + " --execution-type " + args.get("execution-type", "GUARANTEED")
                        + " --command '" + args.get("container-command", "exit 0") + "'"
                        + " --resize-to " + args.getInt("resize-to", 0);
                break;
            case "forged":
                javaAm = "yarnha.ForgedTokenAm --forge " + args.get("forge", "wrong-password");
                break;
            default:
                throw new IllegalArgumentException("--am must be shell, java or forged");
        }
        // The AM runs on this host: it reads the same classes, jars and configuration directory
        // from their absolute paths, so nothing is localized.
        Map<String, String> env = new HashMap<>();
        env.put("CLASSPATH", args.get("am-classpath", System.getProperty("java.class.path")));
        env.put("JAVA_HOME", System.getProperty("java.home"));
        String command = "{{JAVA_HOME}}/bin/java -Xmx128m " + javaAm
                + " 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr";
        return ContainerLaunchContext.newInstance(Collections.emptyMap(), env,
                Collections.singletonList(command), null, null, null);
    }

    /** A launch context running `command` (which must not hold a double quote). */
    private static ContainerLaunchContext shellCommand(String command) {
        String line = "/bin/sh -c '" + command + "' 1><LOG_DIR>/stdout 2><LOG_DIR>/stderr";
        return ContainerLaunchContext.newInstance(Collections.emptyMap(),
                Collections.emptyMap(), Collections.singletonList(line), null, null, null);
    }

    private static ApplicationId submitApplication(YarnClient client, Args args,
            ContainerLaunchContext am) throws Exception {
        YarnClientApplication app = client.createApplication();
        ApplicationSubmissionContext context = app.getApplicationSubmissionContext();
        ApplicationId id = context.getApplicationId();
        System.out.println("APP_ID " + id);
        System.out.println("MAX_CAPABILITY "
                + app.getNewApplicationResponse().getMaximumResourceCapability());
        context.setApplicationName(args.get("name", "yarnha-" + args.mode));
        context.setApplicationType(args.get("type", "YARN"));
        context.setQueue(args.get("queue", "default"));
        context.setResource(Resource.newInstance(args.getInt("am-memory", 256), 1));
        context.setPriority(Priority.newInstance(0));
        context.setMaxAppAttempts(args.getInt("max-attempts", 1));
        context.setAMContainerSpec(am);
        if (args.mode.equals("lifetime")) {
            context.setApplicationTimeouts(Collections.singletonMap(
                    ApplicationTimeoutType.LIFETIME, (long) args.getInt("lifetime-secs", 3600)));
        }
        client.submitApplication(context);
        System.out.println("SUBMITTED " + id);
        return id;
    }

    private static long deadline(Args args) {
        return System.currentTimeMillis() + 1000L * args.getInt("deadline-secs", 180);
    }

    /**
     * Polls the report until a final state; prints each state change, and the attempts and
     * their containers the first time the application is RUNNING. Null (after killing the
     * application) when the deadline passes.
     */
    private static ApplicationReport awaitFinal(YarnClient client, ApplicationId id,
            long deadline) throws Exception {
        YarnApplicationState last = null;
        boolean listed = false;
        while (true) {
            ApplicationReport report = client.getApplicationReport(id);
            YarnApplicationState state = report.getYarnApplicationState();
            if (state != last) {
                System.out.println("STATE " + state);
                last = state;
            }
            if (FINAL.contains(state)) {
                return report;
            }
            if (state == YarnApplicationState.RUNNING && !listed) {
                listed = true;
                printAttempts(client, id);
            }
            if (System.currentTimeMillis() > deadline) {
                System.out.println("DEADLINE " + state + " " + oneLine(report.getDiagnostics()));
                client.killApplication(id);
                return null;
            }
            Thread.sleep(500);
        }
    }

    private static void printAttempts(YarnClient client, ApplicationId id) throws Exception {
        List<ApplicationAttemptReport> attempts = client.getApplicationAttempts(id);
        System.out.println("ATTEMPTS " + attempts.size());
        for (ApplicationAttemptReport attempt : attempts) {
            System.out.println("ATTEMPT " + attempt.getApplicationAttemptId() + " "
                    + attempt.getYarnApplicationAttemptState() + " "
                    + attempt.getAMContainerId());
            List<ContainerReport> containers =
                    client.getContainers(attempt.getApplicationAttemptId());
            System.out.println("CONTAINERS " + containers.size());
            for (ContainerReport container : containers) {
                System.out.println("CONTAINER " + container.getContainerId() + " "
                        + container.getContainerState() + " "
                        + container.getAssignedNode());
            }
        }
    }

    private static void printFinal(ApplicationReport report) {
        System.out.println("FINAL_STATE " + report.getYarnApplicationState());
        System.out.println("FINAL_STATUS " + report.getFinalApplicationStatus());
        System.out.println("APPLICATION_TYPE " + report.getApplicationType());
        System.out.println("APP_QUEUE " + report.getQueue());
        System.out.println("DIAGNOSTICS " + oneLine(report.getDiagnostics()));
    }
}
