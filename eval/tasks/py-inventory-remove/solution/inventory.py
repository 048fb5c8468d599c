class Inventory:
    def __init__(self):
        self.counts = {}

    def add(self, item, quantity=1):
        self.counts[item] = self.counts.get(item, 0) + quantity

    def remove(self, item, quantity=1):
        have = self.counts.get(item, 0)
        if quantity > have:
            raise ValueError(f"only {have} of {item}, cannot remove {quantity}")
        if have == quantity:
            del self.counts[item]
        else:
            self.counts[item] = have - quantity
