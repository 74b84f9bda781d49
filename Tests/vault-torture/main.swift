import BrokerStore

// Filled in by the vault issue: writes tokens in a loop until killed.
print("vault-torture: not implemented")
