# randqa's driver for R's runif():
#
#   Rscript r_driver.R stream BACKEND SEED       set.seed(SEED, kind = ...), then
#                                                floor(u * 2^b) of each runif value
#                                                to stdout, eight packed into b bytes
#                                                (the first value in the lowest bits),
#                                                until the reader closes the pipe
#   Rscript r_driver.R time BACKEND SEED CALLS   runif for CALLS values, as R code
#                                                calls it (vectors of up to 2^20);
#                                                prints the seconds it took
KINDS <- c("r-mersenne-twister" = "Mersenne-Twister", "r-wichmann-hill" = "Wichmann-Hill",
           "r-marsaglia-multicarry" = "Marsaglia-Multicarry", "r-super-duper" = "Super-Duper",
           "r-knuth-taocp-2002" = "Knuth-TAOCP-2002", "r-lecuyer-cmrg" = "L'Ecuyer-CMRG")
# bits of each runif value in the stream: R's generators give 32, Knuth-TAOCP-2002 30
BITS <- c("r-knuth-taocp-2002" = 30)

usage <- function() {
  cat("usage: r_driver.R stream BACKEND SEED | time BACKEND SEED CALLS\n", file = stderr())
  quit(status = 2)
}

# values below 2^b (a multiple of 8 of them) packed eight to b bytes, least significant first
pack <- function(x, b) {
  if (b == 32) {  # each value as 4 little-endian bytes, written as two 16-bit halves
    low <- x %% 65536
    return(writeBin(as.integer(rbind(low, (x - low) / 65536)), raw(), size = 2L, endian = "little"))
  }
  groups <- matrix(x, nrow = 8)
  out <- matrix(0, nrow = b, ncol = ncol(groups))
  for (j in 0:(b - 1)) {
    k <- (8 * j) %/% b
    s <- 8 * j - b * k
    byte <- (groups[k + 1, ] %/% 2^s) %% 256
    r <- b - s
    if (r < 8) byte <- byte + (groups[k + 2, ] %% 2^(8 - r)) * 2^r
    out[j + 1, ] <- byte
  }
  as.raw(out)
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 3 || is.na(KINDS[args[2]])) usage()
backend <- args[2]
suppressWarnings(set.seed(as.integer(args[3]), kind = KINDS[[backend]]))
bits <- if (is.na(BITS[backend])) 32 else BITS[[backend]]

if (args[1] == "stream" && length(args) == 3) {
  out <- file("/dev/stdout", "wb", raw = TRUE)
  tryCatch(repeat writeBin(pack(floor(runif(65536) * 2^bits), bits), out),
           error = function(e) quit(status = 0))  # the reader closed the pipe
} else if (args[1] == "time" && length(args) == 4) {
  left <- as.numeric(args[4])
  start <- proc.time()[["elapsed"]]
  while (left > 0) {
    n <- min(left, 2^20)
    u <- runif(n)
    left <- left - n
  }
  cat(sprintf("%.6f\n", proc.time()[["elapsed"]] - start))
} else usage()
