def compute_total(lines):
    return round(sum(price * qty for price, qty in lines), 2)
