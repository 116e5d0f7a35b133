// randqa's .NET driver (Mono): mono MonoDriver.exe stream BACKEND SEED
//                                                  time BACKEND SEED CALLS
// stream: BACKEND's bytes to stdout until the reader closes the pipe.
// time:   CALLS calls of the generator in a plain loop; prints the seconds.
using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;

public static class MonoDriver
{
    static void Usage()
    {
        Console.Error.WriteLine("usage: MonoDriver.exe stream dotnet-random SEED | time dotnet-random SEED CALLS");
        Environment.Exit(2);
    }

    // dotnet-random: the 31 bits of each Next(), packed from the least
    // significant bit of the first value (8 calls = 31 bytes)
    static void Stream(Random r)
    {
        byte[] buf = new byte[31 * 2048];
        Stream stdout = Console.OpenStandardOutput();
        for (;;)
        {
            int pos = 0;
            ulong acc = 0;
            int have = 0;
            for (int k = 0; k < 8 * 2048; k++)
            {
                acc |= (ulong)((uint)r.Next() & 0x7fffffffu) << have;
                have += 31;
                while (have >= 8)
                {
                    buf[pos++] = (byte)acc;
                    acc >>= 8;
                    have -= 8;
                }
            }
            try
            {
                stdout.Write(buf, 0, pos);
                stdout.Flush();
            }
            catch (IOException)
            {
                Environment.Exit(0);  // the reader closed the pipe: it has what it wanted
            }
        }
    }

    static double Timed(Random r, long calls)
    {
        long sum = 0;
        Stopwatch watch = Stopwatch.StartNew();
        for (long i = 0; i < calls; i++)
            sum += r.Next();
        watch.Stop();
        if (sum == 42)
            Console.Error.WriteLine(sum);  // keeps the loop's work observable
        return watch.Elapsed.TotalSeconds;
    }

    public static void Main(string[] args)
    {
        if (args.Length < 3 || args[1] != "dotnet-random")
            Usage();
        int seed;
        if (!int.TryParse(args[2], NumberStyles.Integer, CultureInfo.InvariantCulture, out seed))
            Usage();
        Random r = new Random(seed);
        if (args[0] == "stream" && args.Length == 3)
            Stream(r);
        else if (args[0] == "time" && args.Length == 4)
            Console.WriteLine(Timed(r, long.Parse(args[3], CultureInfo.InvariantCulture)).ToString("R", CultureInfo.InvariantCulture));
        else
            Usage();
    }
}
