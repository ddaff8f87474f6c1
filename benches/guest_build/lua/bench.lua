-- interpreter-bound work in the image of benches/deadline_checks: a loop, fib, a word count,
-- trial-division primes, string building. Prints results and "T name seconds".
local which = arg[1] or "all"
local k = tonumber(arg[2] or "1")  -- scale: 1 for timing, smaller for a PGO training run
local function loop() local s = 0 for i = 0, math.floor(30000000 * k) - 1 do s = s + (i * i) % 7 end return s end
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function words()
  local d = {}
  for i = 0, math.floor(400000 * k) - 1 do local w = "w" .. (i % 5000) .. "x" .. (i % 37); d[w] = (d[w] or 0) + #w end
  local n, s = 0, 0 for _, v in pairs(d) do n = n + 1; s = s + v end return n * 1000000 + s
end
local function primes()
  local ps = {}
  for n = 2, math.floor(600000 * k) do
    local isp = true
    for _, p in ipairs(ps) do if p * p > n then break end if n % p == 0 then isp = false break end end
    if isp then ps[#ps + 1] = n end
  end
  return #ps
end
local function strings()
  local t = {} for i = 1, math.floor(200000 * k) do t[#t + 1] = string.format("%d:%s", i, tostring(i * 3)) end
  return #table.concat(t, ",")
end
local r, ts = {}, {}
local function run(name, f, ...)
  if which == "all" or which == name then
    local t = os.clock(); r[#r+1] = f(...); ts[#ts+1] = string.format("T %s %.4f", name, os.clock() - t)
  end
end
run("loop", loop) run("fib", fib, k >= 1 and 32 or 26) run("words", words) run("primes", primes) run("strings", strings)
print(table.concat(r, " ")) print(table.concat(ts, "\n"))
