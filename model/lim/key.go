package lim

// KeyPrime is the modulus of [IPKey], the prime 4294967291 = 2^32 - 5.
const KeyPrime int64 = 4294967291

// KeyMul is the multiplier of [IPKey].
const KeyMul int64 = 131

// IPKey is the seed's lim_ip_key(ip): an arithmetic hash of the address text,
// byte by byte. The result is in [0, KeyPrime). The text is hashed as given:
// callers canonicalise addresses first (spec.md, FIND-3).
func IPKey(ip string) int64 {
	// spec LIM-16: "h starts at 0; for each byte c of ip in order, h = (h*131 + c) mod 4294967291."
	var h int64
	for i := 0; i < len(ip); i++ {
		h = (h*KeyMul + int64(ip[i])) % KeyPrime // h < 2^32, so h*131 + 255 < 2^40
	}
	return h
}
