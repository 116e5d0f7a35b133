# randqa's driver for Ruby's Random:
#
#   ruby ruby_driver.rb stream BACKEND SEED       Random.new(SEED), then the 53 bits
#                                                 of each Random#rand float (x * 2^53)
#                                                 to stdout, eight packed into 53 bytes
#                                                 (the first value in the lowest bits),
#                                                 until the reader closes the pipe
#   ruby ruby_driver.rb time BACKEND SEED CALLS   CALLS calls of Random#rand in a plain
#                                                 loop; prints the seconds they took
#
# BACKEND is ruby-random.
mode, backend, seed_text, calls = ARGV

def usage
  warn "usage: ruby_driver.rb stream BACKEND SEED | time BACKEND SEED CALLS"
  exit 2
end

usage unless backend == "ruby-random" && seed_text =~ /\A[0-9]+\z/
random = Random.new(Integer(seed_text, 10))
TWO_53 = 2**53

if mode == "stream" && calls.nil?
  $stdout.binmode
  begin
    loop do
      chunk = String.new(capacity: 53 * 1024, encoding: Encoding::BINARY)
      1024.times do
        group = 0
        8.times { |k| group |= (random.rand * TWO_53).to_i << (53 * k) }
        chunk << [group.to_s(16).rjust(106, "0")].pack("H*").reverse
      end
      $stdout.write(chunk)
    end
  rescue Errno::EPIPE
    exit 0 # the reader closed the pipe
  end
elsif mode == "time" && calls =~ /\A[0-9]+\z/
  count = Integer(calls, 10)
  sum = 0.0
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  count.times { sum += random.rand }
  seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
  warn sum if sum < 0 # keeps the calls observable
  puts format("%.6f", seconds)
else
  usage
end
