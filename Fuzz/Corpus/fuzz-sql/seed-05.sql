SELECT * FROM Contact;;  -- fine
; SELECT 1