package yarnha;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.util.Map;

import org.apache.hadoop.io.Text;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.security.token.TokenIdentifier;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.security.AMRMTokenIdentifier;

/**
 * An ApplicationMaster that must be refused: it replaces the AMRMToken the ResourceManager gave
 * it with a forgery and tries to register.
 *
 * <pre>
 * --forge wrong-password   same identifier, every password byte flipped
 * --forge other-attempt    the identifier of another application's attempt (the next
 *                          application id, same cluster timestamp and key id) with this
 *                          token's password
 * </pre>
 *
 * Prints `FORGED kind=... mode=...`, then `REFUSED class: message` (and its causes) when the
 * registration fails, or `ACCEPTED` when the ResourceManager took the forgery.
 *
 * Exit codes: 3 refused (what the test expects), 4 accepted (a security failure; it then exits
 * without unregistering), 5 no AMRMToken to forge, 6 the genuine identifier is not an
 * AMRMTokenIdentifier Hadoop can read, 64 bad arguments.
 */
public final class ForgedTokenAm {
    public static final int REFUSED = 3;
    public static final int ACCEPTED = 4;
    public static final int NO_TOKEN = 5;
    public static final int UNDECODABLE = 6;

    public static void main(String[] argv) throws Exception {
        String mode = argv.length == 2 && argv[0].equals("--forge") ? argv[1] : "";
        if (!mode.equals("wrong-password") && !mode.equals("other-attempt")) {
            System.err.println("usage: ForgedTokenAm --forge wrong-password|other-attempt");
            System.exit(64);
        }
        UserGroupInformation user = UserGroupInformation.getCurrentUser();
        Map<Text, Token<? extends TokenIdentifier>> tokens =
                user.getCredentials().getTokenMap();
        Text alias = null;
        Token<? extends TokenIdentifier> original = null;
        for (Map.Entry<Text, Token<? extends TokenIdentifier>> entry : tokens.entrySet()) {
            if (entry.getValue().getKind().equals(AMRMTokenIdentifier.KIND_NAME)) {
                alias = entry.getKey();
                original = entry.getValue();
            }
        }
        if (original == null) {
            System.out.println("NO_TOKEN among " + tokens.keySet());
            System.exit(NO_TOKEN);
        }

        byte[] identifier = original.getIdentifier();
        byte[] password = original.getPassword().clone();
        if (mode.equals("wrong-password")) {
            for (int i = 0; i < password.length; i++) {
                password[i] = (byte) ~password[i];
            }
        } else {
            AMRMTokenIdentifier mine = new AMRMTokenIdentifier();
            try {
                mine.readFields(new DataInputStream(new ByteArrayInputStream(identifier)));
            } catch (java.io.IOException | RuntimeException e) {
                System.out.println("UNDECODABLE_IDENTIFIER " + e);
                System.exit(UNDECODABLE);
            }
            ApplicationAttemptId own = mine.getApplicationAttemptId();
            ApplicationId other = ApplicationId.newInstance(
                    own.getApplicationId().getClusterTimestamp(),
                    own.getApplicationId().getId() + 1);
            identifier = new AMRMTokenIdentifier(ApplicationAttemptId.newInstance(other, 1),
                    mine.getKeyId()).getBytes();
            System.out.println("FORGED_FOR " + other);
        }
        Token<AMRMTokenIdentifier> forged = new Token<>(identifier, password,
                original.getKind(), original.getService());
        // Same alias: replaces the genuine token in the user's credentials.
        user.addToken(alias, forged);
        System.out.println("FORGED kind=" + forged.getKind() + " mode=" + mode);

        AMRMClient<ContainerRequest> rm = AMRMClient.createAMRMClient();
        YarnConfiguration conf = new YarnConfiguration();
        // A refusal is not a network failure worth going round the ResourceManagers for long.
        conf.setInt(YarnConfiguration.CLIENT_FAILOVER_MAX_ATTEMPTS, 6);
        rm.init(conf);
        rm.start();
        try {
            rm.registerApplicationMaster("localhost", 0, "");
        } catch (Exception e) {
            System.out.println("REFUSED " + e.getClass().getName() + ": "
                    + SubmitShellApp.oneLine(e.getMessage()));
            for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
                System.out.println("CAUSE " + cause.getClass().getName() + ": "
                        + SubmitShellApp.oneLine(cause.getMessage()));
            }
            System.out.flush();
            Runtime.getRuntime().halt(REFUSED);
        }
        System.out.println("ACCEPTED");
        System.out.flush();
        Runtime.getRuntime().halt(ACCEPTED);
    }
}
