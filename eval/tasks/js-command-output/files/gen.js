// The sum of the primes below 1000.
let sum = 0;
for (let n = 2; n < 1000; n++) {
  let prime = true;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) prime = false;
  if (prime) sum += n;
}
console.log(sum);
