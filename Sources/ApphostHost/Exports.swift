@_exported import ApphostCore
