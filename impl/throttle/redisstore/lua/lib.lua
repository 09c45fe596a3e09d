-- The store scripts' shared function, joined after each one's first line (JoinLib), so
-- that each script the server runs stands alone. Records and bounds are big-endian uint64s
-- of 8 bytes, compared as two uint32 halves (Lua's numbers are doubles).
local function lt(a, i, b, j) -- the uint64 at a[i] < the one at b[j]
  local ah, al = struct.unpack('>I4I4', a, i)
  local bh, bl = struct.unpack('>I4I4', b, j)
  return ah < bh or (ah == bh and al < bl)
end
