values = [(n * 7919) % 1009 for n in range(1, 501)]
print(round(sum(values) / len(values), 3))
