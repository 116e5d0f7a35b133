// randqa's Go driver: go_driver stream BACKEND SEED
//                     go_driver time BACKEND SEED CALLS
//                     go_driver cooked
// stream: BACKEND's bytes to stdout until the reader closes the pipe.
// time:   CALLS calls of the generator in a plain loop; prints the seconds.
// cooked: math/rand's seeding table rngCooked as a C header, read from a
//         seeded source's state (reflect) with the seeding LCG's part removed.
package main

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strconv"
	"time"
)

func usage() {
	fmt.Fprintln(os.Stderr, "usage: go_driver stream BACKEND SEED | time BACKEND SEED CALLS | cooked")
	os.Exit(2)
}

// go-math-rand: each Uint64() as 8 little-endian bytes
func stream(r *rand.Rand) {
	buf := make([]byte, 1<<16)
	for {
		for off := 0; off < len(buf); off += 8 {
			binary.LittleEndian.PutUint64(buf[off:], r.Uint64())
		}
		if _, err := os.Stdout.Write(buf); err != nil {
			os.Exit(0) // the reader closed the pipe: it has what it wanted
		}
	}
}

func timed(r *rand.Rand, calls int64) float64 {
	var sum uint64
	start := time.Now()
	for i := int64(0); i < calls; i++ {
		sum += r.Uint64()
	}
	seconds := time.Since(start).Seconds()
	if sum == 42 {
		fmt.Fprintln(os.Stderr, sum) // keeps the loop's work observable
	}
	return seconds
}

// math/rand's seedrand: x = 48271 x mod (2^31 - 1), as Seed runs it
func seedrand(x int32) int32 {
	const a, q, r = 48271, 44488, 3399
	hi, lo := x/q, x%q
	x = a*lo - r*hi
	if x < 0 {
		x += 1<<31 - 1
	}
	return x
}

func cooked() {
	const seed = 1
	vec := reflect.ValueOf(rand.NewSource(seed)).Elem().FieldByName("vec")
	x := int32(seed)
	fmt.Println("/* math/rand's rngCooked (Go 1.19), read from rand.NewSource(1)'s state by")
	fmt.Println(" * `go_driver cooked` (randqa/sources/runtimes/drivers/go_driver.go). */")
	fmt.Printf("static const uint64_t go_rng_cooked[%d] = {", vec.Len())
	for i := -20; i < vec.Len(); i++ {
		x = seedrand(x)
		if i >= 0 {
			u := int64(x) << 40
			x = seedrand(x)
			u ^= int64(x) << 20
			x = seedrand(x)
			u ^= int64(x)
			if i%4 == 0 {
				fmt.Print("\n   ")
			}
			fmt.Printf(" 0x%016xULL,", uint64(vec.Index(i).Int()^u))
		}
	}
	fmt.Println("\n};")
}

func main() {
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "cooked" {
		cooked()
		return
	}
	if len(args) < 3 || args[1] != "go-math-rand" {
		usage()
	}
	seed, err := strconv.ParseInt(args[2], 10, 64)
	if err != nil {
		usage()
	}
	r := rand.New(rand.NewSource(seed))
	switch {
	case args[0] == "stream" && len(args) == 3:
		stream(r)
	case args[0] == "time" && len(args) == 4:
		calls, err := strconv.ParseInt(args[3], 10, 64)
		if err != nil {
			usage()
		}
		fmt.Println(timed(r, calls))
	default:
		usage()
	}
}
