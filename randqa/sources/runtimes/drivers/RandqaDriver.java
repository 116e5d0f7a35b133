// randqa's Java driver: java -cp DIR RandqaDriver stream BACKEND SEED
//                                               time BACKEND SEED CALLS
// stream: BACKEND's bytes to stdout until the reader closes the pipe.
// time:   CALLS calls of the generator in a plain loop (after as many, up
//         to 10^6, to let the JIT compile it); prints the seconds.
// SEED is an unsigned 64-bit decimal, passed to the constructor as a long.
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

public final class RandqaDriver {
    // Values of `bits` bits packed from the least significant bit of the first
    private static final class Packer {
        final byte[] buf = new byte[53 * 8192];
        int pos;
        long acc;
        int have;

        void put(long v, int bits) {
            int left = bits;
            while (left > 0) {
                int take = Math.min(left, 56);
                acc |= (v & ((1L << take) - 1)) << have;
                v >>>= take;
                left -= take;
                have += take;
                while (have >= 8) {
                    buf[pos++] = (byte) acc;
                    acc >>>= 8;
                    have -= 8;
                }
            }
        }
    }

    interface Values {
        long next();  // the call's value as an integer of `bits` bits
    }

    private static final double TWO_53 = 9007199254740992.0;

    // Every backend's generator; java.util.Random, SplittableRandom and the
    // java.util.random algorithms all are RandomGenerators (Java 17)
    private static RandomGenerator generator(String backend, long seed) {
        switch (backend) {
            case "java-random":
            case "java-random-long":
            case "java-random-double": return new Random(seed);
            case "java-splittable-random": return new SplittableRandom(seed);
            case "java-l64x128mixrandom": return RandomGeneratorFactory.<RandomGenerator>of("L64X128MixRandom").create(seed);
            default: return null;
        }
    }

    // The bits of the call's value: nextInt(), nextDouble()'s 53, or nextLong()
    private static int bits(String backend) {
        switch (backend) {
            case "java-random": return 32;
            case "java-random-double": return 53;
            default: return 64;
        }
    }

    private static Values values(String backend, long seed) {
        RandomGenerator r = generator(backend, seed);
        if (r == null) return null;
        switch (bits(backend)) {
            case 32: return () -> r.nextInt() & 0xffffffffL;
            case 53: return () -> (long) (r.nextDouble() * TWO_53);
            default: return r::nextLong;
        }
    }

    // The timed loops: the call as an application writes it, summed so it cannot be dropped
    private static double timed(String backend, long seed, long calls) {
        RandomGenerator r = generator(backend, seed);
        if (r == null) return -1;
        long start = System.nanoTime();
        switch (bits(backend)) {
            case 32: {
                long s = 0;
                for (long i = 0; i < calls; i++) s += r.nextInt();
                return finish(start, s);
            }
            case 53: {
                double s = 0;
                for (long i = 0; i < calls; i++) s += r.nextDouble();
                return finish(start, (long) s);
            }
            default: {
                long s = 0;
                for (long i = 0; i < calls; i++) s += r.nextLong();
                return finish(start, s);
            }
        }
    }

    private static long sink;

    private static double finish(long start, long sum) {
        double seconds = (System.nanoTime() - start) / 1e9;
        sink += sum;
        return seconds;
    }

    private static void stream(Values v, int bits) {
        Packer p = new Packer();
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        int words = p.buf.length / bits;  // whole words of 8 values
        try {
            for (;;) {
                p.pos = 0;
                for (int w = 0; w < words; w++)
                    for (int k = 0; k < 8; k++)
                        p.put(v.next(), bits);
                out.write(p.buf, 0, p.pos);
            }
        } catch (IOException e) {
            System.exit(0);  // the reader closed the pipe: it has what it wanted
        }
    }

    private static void usage() {
        System.err.println("usage: RandqaDriver stream BACKEND SEED | time BACKEND SEED CALLS");
        System.exit(2);
    }

    public static void main(String[] args) {
        if (args.length < 3) usage();
        long seed = Long.parseUnsignedLong(args[2]);
        if (args[0].equals("stream") && args.length == 3) {
            Values v = values(args[1], seed);
            if (v == null) usage();
            stream(v, bits(args[1]));
        } else if (args[0].equals("time") && args.length == 4) {
            long calls = Long.parseLong(args[3]);
            if (timed(args[1], seed, Math.min(calls, 1000000)) < 0) usage();
            double seconds = timed(args[1], seed, calls);
            System.out.println(seconds);
            if (sink == 42) System.err.println(sink);
        } else {
            usage();
        }
    }
}
