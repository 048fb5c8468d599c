class Inventory:
    def __init__(self):
        self.counts = {}

    def add(self, item, quantity=1):
        self.counts[item] = self.counts.get(item, 0) + quantity
