package yarnha;

import java.util.HashMap;
import java.util.Map;

/** `--name value` options after a leading mode word, for the test programs. */
final class Args {
    final String mode;
    private final Map<String, String> options = new HashMap<>();

    Args(String[] argv) {
        if (argv.length == 0) {
            throw new IllegalArgumentException("a mode is required");
        }
        mode = argv[0];
        for (int i = 1; i < argv.length; i += 2) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                throw new IllegalArgumentException("expected --name value, got " + argv[i]);
            }
            options.put(argv[i].substring(2), argv[i + 1]);
        }
    }

    String get(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    String require(String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required in mode " + mode);
        }
        return value;
    }

    int getInt(String name, int fallback) {
        return Integer.parseInt(get(name, Integer.toString(fallback)));
    }
}
