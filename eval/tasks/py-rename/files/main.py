from billing import calc

print(calc([(2.5, 4), (1.25, 2)]))
