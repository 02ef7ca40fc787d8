// Intel GKL's AVX PairHMM (the one GATK HaplotypeCaller uses) on a PairHMM batch file, for a
// same-machine comparison with bench_pairhmm's CPU backend. Calls GKL once per region, as GATK
// does, and prints the throughput; with an output path, writes the log10 likelihoods in the format
// of `gpu-pipeline pairhmm` so the two can be compared value by value.
//
// Needs the Debian packages libgkl-java, libgkl-jni and a JDK (see README.md):
//   javac -cp /usr/share/java/gkl.jar:/usr/share/java/gatk-native-bindings.jar -d /tmp/gkl GklPairHmmBench.java
//   java -Djava.library.path=/usr/lib/jni \
//        -cp /tmp/gkl:/usr/share/java/gkl.jar:/usr/share/java/gatk-native-bindings.jar \
//        GklPairHmmBench 1m.in THREADS REPEATS [scores.out]
import com.intel.gkl.pairhmm.IntelPairHmm;
import com.intel.gkl.pairhmm.IntelPairHmmOMP;
import java.io.BufferedReader;
import java.io.File;
import java.io.FileReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.broadinstitute.gatk.nativebindings.pairhmm.HaplotypeDataHolder;
import org.broadinstitute.gatk.nativebindings.pairhmm.PairHMMNativeArguments;
import org.broadinstitute.gatk.nativebindings.pairhmm.ReadDataHolder;

public final class GklPairHmmBench {
  private static final class Region {
    ReadDataHolder[] reads;
    HaplotypeDataHolder[] haplotypes;
    long cells;
  }

  private static byte[] phred(String s) {
    final byte[] q = s.getBytes();
    for (int i = 0; i < q.length; ++i) q[i] -= 33;
    return q;
  }

  private static List<Region> read(String path) throws IOException {
    final List<Region> regions = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new FileReader(path))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) continue;
        final String[] counts = line.trim().split("\\s+");
        final Region region = new Region();
        region.reads = new ReadDataHolder[Integer.parseInt(counts[0])];
        region.haplotypes = new HaplotypeDataHolder[Integer.parseInt(counts[1])];
        long readBases = 0, hapBases = 0;
        for (int r = 0; r < region.reads.length; ++r) {
          final String[] f = in.readLine().trim().split("\\s+");
          final ReadDataHolder read = new ReadDataHolder();
          read.readBases = f[0].getBytes();
          read.readQuals = phred(f[1]);
          read.insertionGOP = phred(f[2]);
          read.deletionGOP = phred(f[3]);
          read.overallGCP = phred(f[4]);
          region.reads[r] = read;
          readBases += f[0].length();
        }
        for (int h = 0; h < region.haplotypes.length; ++h) {
          final HaplotypeDataHolder hap = new HaplotypeDataHolder();
          hap.haplotypeBases = in.readLine().trim().getBytes();
          region.haplotypes[h] = hap;
          hapBases += hap.haplotypeBases.length;
        }
        region.cells = readBases * hapBases;
        regions.add(region);
      }
    }
    return regions;
  }

  public static void main(String[] args) throws Exception {
    final List<Region> regions = read(args[0]);
    final int threads = Integer.parseInt(args[1]);
    final int repeats = Integer.parseInt(args[2]);
    final IntelPairHmm hmm = threads > 1 ? new IntelPairHmmOMP() : new IntelPairHmm();
    if (!hmm.load(new File(System.getProperty("java.io.tmpdir")))) {
      throw new IllegalStateException("GKL PairHMM native library could not be loaded");
    }
    final PairHMMNativeArguments arguments = new PairHMMNativeArguments();
    arguments.maxNumberOfThreads = threads;
    arguments.useDoublePrecision = false;
    hmm.initialize(arguments);
    long cells = 0;
    final List<double[]> results = new ArrayList<>();
    for (Region r : regions) {
      cells += r.cells;
      results.add(new double[r.reads.length * r.haplotypes.length]);
    }
    final double[] seconds = new double[repeats + 1];
    for (int rep = 0; rep <= repeats; ++rep) {  // the first run warms up
      final long start = System.nanoTime();
      for (int k = 0; k < regions.size(); ++k) {
        hmm.computeLikelihoods(regions.get(k).reads, regions.get(k).haplotypes, results.get(k));
      }
      seconds[rep] = (System.nanoTime() - start) * 1e-9;
    }
    hmm.done();
    final double[] timed = Arrays.copyOfRange(seconds, 1, repeats + 1);
    Arrays.sort(timed);
    final double median = timed[timed.length / 2];
    System.out.printf("GKL PairHMM (%s, %d threads): %d cells, median %.4f s, %.2f GCUPS%n",
        threads > 1 ? "OMP" : "single", threads, cells, median, cells / median * 1e-9);
    if (args.length > 3) {
      try (PrintWriter out = new PrintWriter(args[3])) {
        for (int k = 0; k < regions.size(); ++k) {
          final Region r = regions.get(k);
          out.printf("%d %d%n", r.reads.length, r.haplotypes.length);
          for (int i = 0; i < r.reads.length; ++i) {
            final StringBuilder line = new StringBuilder();
            for (int h = 0; h < r.haplotypes.length; ++h) {
              if (h > 0) line.append(' ');
              line.append(String.format("%.6f", results.get(k)[i * r.haplotypes.length + h]));
            }
            out.println(line);
          }
        }
      }
    }
  }
}
