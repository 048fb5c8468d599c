from billing import compute_total

print(compute_total([(2.5, 4), (1.25, 2)]))
