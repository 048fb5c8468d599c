def calc(lines):
    return round(sum(price * qty for price, qty in lines), 2)
