import unittest
from inventory import Inventory


class InventoryTest(unittest.TestCase):
    def test_add(self):
        inventory = Inventory()
        inventory.add("apple", 3)
        self.assertEqual(inventory.counts, {"apple": 3})
