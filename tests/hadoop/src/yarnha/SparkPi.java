package yarnha;

import java.util.ArrayList;
import java.util.List;

import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Estimates pi on Spark: `SparkPi [slices [pause-ms]]` scatters 10,000 random points per slice
 * over the unit square and counts those inside the circle, each task pausing `pause-ms` first
 * (so that a test can act while the job runs). Prints `Pi is roughly <value>` and exits 0 when
 * the value is within 0.2 of pi.
 */
public final class SparkPi {
    public static void main(String[] args) {
        int slices = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        long pauseMs = args.length > 1 ? Long.parseLong(args[1]) : 0;
        int perSlice = 10000;
        List<Integer> seeds = new ArrayList<>();
        for (int i = 0; i < slices; i++) {
            seeds.add(i);
        }
        SparkConf conf = new SparkConf().setAppName("yarnha-spark-pi");
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            long inside = spark.parallelize(seeds, slices).map(seed -> {
                Thread.sleep(pauseMs);
                java.util.Random random = new java.util.Random(seed);
                long hits = 0;
                for (int i = 0; i < perSlice; i++) {
                    double x = random.nextDouble() * 2 - 1;
                    double y = random.nextDouble() * 2 - 1;
                    if (x * x + y * y <= 1) {
                        hits++;
                    }
                }
                return hits;
            }).reduce(Long::sum);
            double pi = 4.0 * inside / ((long) slices * perSlice);
            System.out.println("Pi is roughly " + pi);
            System.out.flush();
            if (Math.abs(pi - Math.PI) > 0.2) {
                System.exit(1);
            }
        }
    }
}
