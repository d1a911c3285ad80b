package sql

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/magmalake/magmalake/pgerr"
)

// to_char of numbers (integer, bigint, real, double precision, numeric)
// as PostgreSQL 15's formatting.c: NUMDesc_prepare reads the template,
// the value is printed to a digit string (rounded to the template's
// decimals, '#' when its integer part does not fit), and NUM_processor
// lays the digits, sign, separators and literals out. The C locale's
// signs, point, group separator and currency symbol are "-", "+", ".",
// "," and " ".

var numKeywords = []string{",", ".", "0", "9", "B", "C", "D", "EEEE", "FM", "G", "L", "MI", "PL", "PR", "RN", "SG", "SP", "S",
	"TH", "V", "b", "c", "d", "eeee", "fm", "g", "l", "mi", "pl", "pr", "rn", "sg", "sp", "s", "th", "v"}

// NUMDesc flags.
const (
	numDecimal = 1 << (iota + 1)
	numLDecimal
	numZero
	numBlank
	numFillMode
	numLSign
	numBracket
	numMinus
	numPlus
	numRoman
	numMulti
	numPlusPost
	numMinusPost
	numEEEE
)

const (
	lsignPre  = -1
	lsignPost = 1
)

// numDesc is formatting.c's NUMDesc.
type numDesc struct {
	pre, post, lsign, flag, preLsignNum, multi, zeroStart, zeroEnd int
}

func (d *numDesc) is(f int) bool { return d.flag&f != 0 }

func numSyntax(msg string) error { return pgerr.Errorf(pgerr.SyntaxError, "%s", msg) }

// parseNUM is parse_format for number templates with NUMDesc_prepare.
func parseNUM(f string) ([]fmtNode, numDesc, error) {
	var nodes []fmtNode
	var d numDesc
	for len(f) > 0 {
		k := matchKeyword(f, numKeywords)
		if k == "" {
			var lit string
			lit, f = templateLiteral(f)
			nodes = append(nodes, fmtNode{text: lit})
			continue
		}
		f = f[len(k):]
		if k != "rn" && k != "th" {
			k = strings.ToUpper(k)
		}
		nodes = append(nodes, fmtNode{key: k})
		if err := d.prepare(k); err != nil {
			return nil, d, err
		}
	}
	return nodes, d, nil
}

// prepare is NUMDesc_prepare for one keyword.
func (d *numDesc) prepare(k string) error {
	if d.is(numEEEE) && k != "EEEE" {
		return numSyntax(`"EEEE" must be the last pattern used`)
	}
	switch k {
	case "9":
		if d.is(numBracket) {
			return numSyntax(`"9" must be ahead of "PR"`)
		}
		switch {
		case d.is(numMulti):
			d.multi++
		case d.is(numDecimal):
			d.post++
		default:
			d.pre++
		}
	case "0":
		if d.is(numBracket) {
			return numSyntax(`"0" must be ahead of "PR"`)
		}
		if !d.is(numZero) && !d.is(numDecimal) {
			d.flag |= numZero
			d.zeroStart = d.pre + 1
		}
		if !d.is(numDecimal) {
			d.pre++
		} else {
			d.post++
		}
		d.zeroEnd = d.pre + d.post
	case "B":
		if d.pre == 0 && d.post == 0 && !d.is(numZero) {
			d.flag |= numBlank
		}
	case "D", ".":
		if k == "D" {
			d.flag |= numLDecimal
		}
		if d.is(numDecimal) {
			return numSyntax("multiple decimal points")
		}
		if d.is(numMulti) {
			return numSyntax(`cannot use "V" and decimal point together`)
		}
		d.flag |= numDecimal
	case "FM":
		d.flag |= numFillMode
	case "S":
		if d.is(numLSign) {
			return numSyntax(`cannot use "S" twice`)
		}
		if d.is(numPlus) || d.is(numMinus) || d.is(numBracket) {
			return numSyntax(`cannot use "S" and "PL"/"MI"/"SG"/"PR" together`)
		}
		if !d.is(numDecimal) {
			d.lsign, d.preLsignNum = lsignPre, d.pre
			d.flag |= numLSign
		} else if d.lsign == 0 {
			d.lsign = lsignPost
			d.flag |= numLSign
		}
	case "MI":
		if d.is(numLSign) {
			return numSyntax(`cannot use "S" and "MI" together`)
		}
		d.flag |= numMinus
		if d.is(numDecimal) {
			d.flag |= numMinusPost
		}
	case "PL":
		if d.is(numLSign) {
			return numSyntax(`cannot use "S" and "PL" together`)
		}
		d.flag |= numPlus
		if d.is(numDecimal) {
			d.flag |= numPlusPost
		}
	case "SG":
		if d.is(numLSign) {
			return numSyntax(`cannot use "S" and "SG" together`)
		}
		d.flag |= numMinus | numPlus
	case "PR":
		if d.is(numLSign) || d.is(numPlus) || d.is(numMinus) {
			return numSyntax(`cannot use "PR" and "S"/"PL"/"MI"/"SG" together`)
		}
		d.flag |= numBracket
	case "RN", "rn":
		d.flag |= numRoman
	case "V":
		if d.is(numDecimal) {
			return numSyntax(`cannot use "V" and decimal point together`)
		}
		d.flag |= numMulti
	case "EEEE":
		if d.is(numEEEE) {
			return numSyntax(`cannot use "EEEE" twice`)
		}
		if d.is(numBlank) || d.is(numFillMode) || d.is(numLSign) || d.is(numBracket) || d.is(numMinus) ||
			d.is(numPlus) || d.is(numRoman) || d.is(numMulti) {
			return &pgerr.Error{Code: pgerr.SyntaxError, Message: `"EEEE" is incompatible with other formats`,
				Detail: `"EEEE" may only be used together with digit and decimal point patterns.`}
		}
		d.flag |= numEEEE
	}
	return nil
}

// numProc is NUM_processor's state while writing (NUMProc).
type numProc struct {
	d                    *numDesc
	sign                 byte
	signWrote, numIn     bool
	numCount, numCurr    int
	outPreSpaces         int
	number               []byte // NUL-terminated, as the C string
	numberP, lastRelevan int    // lastRelevan -1 is NULL
	out                  []byte
}

func (np *numProc) at(i int) byte {
	if i >= len(np.number) {
		return 0 // past the terminator (C reads what follows)
	}
	return np.number[i]
}

func (np *numProc) predecSpace() bool {
	return !np.d.is(numZero) && np.numberP == 0 && np.number[0] == '0' && np.d.post != 0
}

func (np *numProc) lastIsPoint() bool { return np.lastRelevan >= 0 && np.at(np.lastRelevan) == '.' }

// numpart is NUM_numpart_to_char.
func (np *numProc) numpart(id string) {
	d := np.d
	if d.is(numRoman) {
		return
	}
	np.numIn = false
	if !np.signWrote && (np.numCurr >= np.outPreSpaces || d.is(numZero) && d.zeroStart == np.numCurr) &&
		(!np.predecSpace() || np.lastIsPoint()) {
		switch {
		case d.is(numLSign):
			if d.lsign == lsignPre {
				np.out = append(np.out, pickByte(np.sign == '-', '-', '+'))
				np.signWrote = true
			}
		case d.is(numBracket):
			np.out = append(np.out, pickByte(np.sign == '+', ' ', '<'))
			np.signWrote = true
		case np.sign == '+':
			if !d.is(numFillMode) {
				np.out = append(np.out, ' ')
			}
			np.signWrote = true
		case np.sign == '-':
			np.out = append(np.out, '-')
			np.signWrote = true
		}
	}
	if id == "9" || id == "0" || id == "D" || id == "." {
		switch {
		case np.numCurr < np.outPreSpaces && (d.zeroStart > np.numCurr || !d.is(numZero)):
			if !d.is(numFillMode) {
				np.out = append(np.out, ' ')
			}
		case d.is(numZero) && np.numCurr < np.outPreSpaces && d.zeroStart <= np.numCurr:
			np.out = append(np.out, '0')
			np.numIn = true
		default:
			if np.at(np.numberP) == '.' {
				if !np.lastIsPoint() || d.is(numFillMode) {
					np.out = append(np.out, '.')
				}
			} else {
				switch {
				case np.lastRelevan >= 0 && np.numberP > np.lastRelevan && id != "0":
				case np.predecSpace():
					if !d.is(numFillMode) {
						np.out = append(np.out, ' ')
					} else if np.lastIsPoint() {
						np.out = append(np.out, '0')
					}
				default:
					np.out = append(np.out, np.at(np.numberP))
					np.numIn = true
				}
			}
			if np.at(np.numberP) != 0 {
				np.numberP++
			}
		}
		end := np.numCount
		if np.outPreSpaces != 0 {
			end++
		}
		if d.is(numDecimal) {
			end++
		}
		if np.lastRelevan >= 0 && np.lastRelevan == np.numberP {
			end = np.numCurr
		}
		if np.numCurr+1 == end {
			if np.signWrote && d.is(numBracket) {
				np.out = append(np.out, pickByte(np.sign == '+', ' ', '>'))
			} else if d.is(numLSign) && d.lsign == lsignPost {
				np.out = append(np.out, pickByte(np.sign == '-', '-', '+'))
			}
		}
	}
	np.numCurr++
}

func pickByte(c bool, a, b byte) byte {
	if c {
		return a
	}
	return b
}

// numProcess is NUM_processor for to_char: number is the digit string
// (without its sign), sign '+', '-' or 0 (roman numerals).
func numProcess(nodes []fmtNode, d numDesc, number string, outPreSpaces int, sign byte) (string, error) {
	if d.zeroStart != 0 {
		d.zeroStart--
	}
	if d.is(numEEEE) {
		return number, nil
	}
	if d.is(numRoman) {
		d.lsign, d.preLsignNum, d.post, d.pre, outPreSpaces, sign = 0, 0, 0, 0, 0, 0
		d.flag = d.flag&numFillMode | numRoman
	}
	np := &numProc{d: &d, sign: sign, number: append([]byte(number), 0), lastRelevan: -1}
	if d.is(numPlus) || d.is(numMinus) {
		np.signWrote = !(d.is(numPlus) && !d.is(numMinus))
	} else {
		if sign != '-' && d.is(numBracket) && d.is(numFillMode) {
			d.flag &^= numBracket
		}
		np.signWrote = sign == '+' && d.is(numFillMode) && !d.is(numLSign)
		if d.lsign == lsignPre && d.pre == d.preLsignNum {
			d.lsign = lsignPost
		}
	}
	np.numCount = d.post + d.pre - 1
	np.outPreSpaces = outPreSpaces
	if d.is(numFillMode) && d.is(numDecimal) {
		if p := strings.IndexByte(number, '.'); p >= 0 {
			np.lastRelevan = p
			for i := p + 1; i < len(number); i++ {
				if number[i] != '0' {
					np.lastRelevan = i
				}
			}
			if d.zeroEnd > outPreSpaces {
				if lastZero := d.zeroEnd - outPreSpaces; np.lastRelevan < lastZero {
					np.lastRelevan = lastZero
				}
			}
		}
	}
	if !np.signWrote && outPreSpaces == 0 {
		np.numCount++
	}
	for _, n := range nodes {
		if n.key == "" {
			np.out = append(np.out, n.text...)
			continue
		}
		switch n.key {
		case "9", "0", ".", "D":
			np.numpart(n.key)
		case ",", "G":
			if !np.numIn {
				if !d.is(numFillMode) {
					np.out = append(np.out, ' ')
				}
			} else {
				np.out = append(np.out, ',')
			}
		case "L":
			np.out = append(np.out, ' ')
		case "RN", "rn":
			r := string(np.number[np.numberP : len(np.number)-1])
			if n.key == "rn" {
				r = strings.ToLower(r)
			}
			if !d.is(numFillMode) && len(r) < 15 {
				r = strings.Repeat(" ", 15-len(r)) + r
			}
			np.out = append(np.out, r...)
		case "TH", "th":
			if d.is(numRoman) || np.number[0] == '#' || np.sign == '-' || d.is(numDecimal) {
				continue
			}
			if c := number[len(number)-1]; c < '0' || c > '9' {
				return "", pgerr.Errorf(pgerr.InvalidTextRepresentation, "%q is not a number", number)
			}
			np.out = append(np.out, ordinalSuffix(number, n.key == "TH")...)
		case "MI":
			if np.sign == '-' {
				np.out = append(np.out, '-')
			} else if !d.is(numFillMode) {
				np.out = append(np.out, ' ')
			}
		case "PL":
			if np.sign == '+' {
				np.out = append(np.out, '+')
			} else if !d.is(numFillMode) {
				np.out = append(np.out, ' ')
			}
		case "SG":
			np.out = append(np.out, np.sign)
		}
	}
	out := np.out
	if i := strings.IndexByte(string(out), 0); i >= 0 {
		out = out[:i] // a NUL (SG of a roman numeral) ends the C string
	}
	return string(out), nil
}

// overflowDigits is the '#' string of a value too wide for the template.
func overflowDigits(d numDesc) string {
	b := []byte(strings.Repeat("#", d.pre+d.post+1))
	b[d.pre] = '.'
	return string(b)
}

// layout finishes the digit string of a non-EEEE, non-roman value printed
// as orgnum (sign included): its sign, padding, or overflow.
func layout(d numDesc, orgnum string) (numstr string, pad int, sign byte) {
	sign = '+'
	numstr = orgnum
	if strings.HasPrefix(orgnum, "-") {
		sign, numstr = '-', orgnum[1:]
	}
	preLen := len(numstr)
	if p := strings.IndexByte(numstr, '.'); p >= 0 {
		preLen = p
	}
	if preLen < d.pre {
		pad = d.pre - preLen
	} else if preLen > d.pre {
		numstr = overflowDigits(d)
	}
	return numstr, pad, sign
}

// romanNumeral is int_to_roman: '#' × 15 outside 1..3999.
func romanNumeral(n int64) string {
	if n < 1 || n > 3999 {
		return strings.Repeat("#", 15)
	}
	var sb strings.Builder
	sb.WriteString(strings.Repeat("M", int(n/1000)))
	for _, p := range [...]struct {
		div            int64
		one, five, ten string
	}{{100, "C", "D", "M"}, {10, "X", "L", "C"}, {1, "I", "V", "X"}} {
		k := n / p.div % 10
		switch {
		case k == 9:
			sb.WriteString(p.one + p.ten)
		case k >= 5:
			sb.WriteString(p.five + strings.Repeat(p.one, int(k-5)))
		case k == 4:
			sb.WriteString(p.one + p.five)
		default:
			sb.WriteString(strings.Repeat(p.one, int(k)))
		}
	}
	return sb.String()
}

// errIntRange is int4's "integer out of range".
func errIntRange() error { return pgerr.Errorf(pgerr.NumericValueOutOfRange, "integer out of range") }

// toCharNumber is to_char(v, f) for a value of type t.
func toCharNumber(v any, t Type, f string) (any, error) {
	if f == "" {
		return "", nil
	}
	nodes, d, err := parseNUM(f)
	if err != nil {
		return nil, err
	}
	var numstr string
	pad, sign := 0, byte(0)
	switch {
	case d.is(numRoman):
		var n int64
		switch x := v.(type) {
		case int64:
			if t.Kind == KindInt64 && (x < math.MinInt32 || x > math.MaxInt32) {
				return nil, errIntRange()
			}
			n = x
		case float64:
			r := math.RoundToEven(x)
			n = math.MinInt32 // (int) of NaN or out of range, as on x86
			if r >= math.MinInt32 && r <= math.MaxInt32 {
				n = int64(r)
			}
		case Decimal:
			r := x.Rescale(0)
			if !r.Coef.IsInt64() || r.Coef.Int64() < math.MinInt32 || r.Coef.Int64() > math.MaxInt32 {
				return nil, errIntRange()
			}
			n = r.Coef.Int64()
		}
		numstr = romanNumeral(n)
	case d.is(numEEEE):
		numstr = eeeeString(v, t, d)
	default:
		var orgnum string
		switch x := v.(type) {
		case int64:
			if d.is(numMulti) {
				if x, err = multiplyInt(x, t, d.multi); err != nil {
					return nil, err
				}
				d.pre += d.multi
			}
			orgnum = strconv.FormatInt(x, 10)
			if d.post > 0 {
				orgnum += "." + strings.Repeat("0", d.post)
			}
		case float64:
			orgnum = floatDigits(x, t, &d)
		case Decimal:
			if d.is(numMulti) {
				x = x.mul(Decimal{Coef: pow10(d.multi)})
				d.pre += d.multi
			}
			orgnum = x.Rescale(d.post).String()
		}
		numstr, pad, sign = layout(d, orgnum)
	}
	return numProcess(nodes, d, numstr, pad, sign)
}

// multiplyInt is V's scaling of an integer. Since PostgreSQL 15.20 int4
// checks it as int8 always did: 10^multi must itself fit the type, and so
// must the product, else "integer out of range" ("bigint out of range");
// 15.18 let int4 wrap around.
func multiplyInt(x int64, t Type, multi int) (int64, error) {
	lo, hi, maxMulti, errRange := int64(math.MinInt32), int64(math.MaxInt32), 9, errIntRange()
	if t.Kind == KindInt64 {
		lo, hi, maxMulti, errRange = math.MinInt64, math.MaxInt64, 18, pgerr.Errorf(pgerr.NumericValueOutOfRange, "bigint out of range")
	}
	if multi > maxMulti {
		return 0, errRange
	}
	r := new(big.Int).Mul(big.NewInt(x), pow10(multi))
	if !r.IsInt64() || r.Int64() < lo || r.Int64() > hi {
		return 0, errRange
	}
	return r.Int64(), nil
}

// cFloat is printf("%.*f") of v as PostgreSQL's snprintf writes it
// (NaN, Infinity, -Infinity).
func cFloat(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// floatDigits prints a real or double precision value with the template's
// decimals, capped so that at most FLT_DIG (6) or DBL_DIG (15) digits show.
func floatDigits(x float64, t Type, d *numDesc) string {
	digits := 15
	if t.Kind == KindFloat32 {
		digits = 6
	}
	if d.is(numMulti) {
		if t.Kind == KindFloat32 {
			x = float64(float32(x) * float32(math.Pow10(d.multi)))
		} else {
			x *= math.Pow10(d.multi)
		}
		d.pre += d.multi
	}
	preLen := len(cFloat(math.Abs(x), 0))
	if preLen >= digits {
		d.post = 0
	} else if preLen+d.post > digits {
		d.post = digits - preLen
	}
	return cFloat(x, d.post)
}

// eeeeString is the scientific notation EEEE prints, a space where a
// positive value's sign would be.
func eeeeString(v any, t Type, d numDesc) string {
	switch x := v.(type) {
	case int64:
		if t.Kind == KindInt64 {
			return sciDecimal(DecimalFromInt(x), d.post)
		}
		return cSci(float64(x), d.post)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b := []byte(strings.Repeat("#", d.pre+d.post+6))
			b[0], b[d.pre+1] = ' ', '.'
			return string(b)
		}
		return cSci(x, d.post)
	case Decimal:
		return sciDecimal(x, d.post)
	}
	return ""
}

// cSci is printf("%+.*e") with the plus sign made a space.
func cSci(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'e', prec, 64)
	if !strings.HasPrefix(s, "-") {
		s = " " + s
	}
	return s
}

// sciDecimal is numeric_out_sci: the significand rounded to rscale
// places (which can make it 10.00), "e" and a signed two-digit or longer
// exponent; a space leads a value that is not negative.
func sciDecimal(x Decimal, rscale int) string {
	exp := 0
	if x.Coef.Sign() != 0 {
		exp = len(new(big.Int).Abs(x.Coef).String()) - 1 - x.Scale
	}
	// x / 10^exp, exactly, then rounded.
	sig := Decimal{Coef: x.Coef, Scale: x.Scale + exp}
	if sig.Scale < 0 {
		sig = Decimal{Coef: new(big.Int).Mul(x.Coef, pow10(-sig.Scale))}
	}
	s := sig.Rescale(rscale).String()
	e := strconv.Itoa(abs(exp))
	if len(e) < 2 {
		e = "0" + e
	}
	s += "e" + pick(exp < 0, "-", "+") + e
	if !strings.HasPrefix(s, "-") {
		s = " " + s
	}
	return s
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
