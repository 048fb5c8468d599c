import unittest
from inventory import Inventory


class HiddenTest(unittest.TestCase):
    def test_remove(self):
        inventory = Inventory()
        inventory.add("apple", 3)
        inventory.remove("apple", 2)
        self.assertEqual(inventory.counts, {"apple": 1})
        inventory.remove("apple", 1)
        self.assertEqual(inventory.counts, {})

    def test_not_enough(self):
        inventory = Inventory()
        inventory.add("pear", 1)
        with self.assertRaises(ValueError):
            inventory.remove("pear", 2)
        with self.assertRaises(ValueError):
            inventory.remove("plum", 1)
        self.assertEqual(inventory.counts, {"pear": 1})
