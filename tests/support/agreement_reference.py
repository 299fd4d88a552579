"""Oracles for the agreement measures, transcribed from their reference code.

* :func:`rbo`, :func:`flatten`, :func:`cc_w`, :func:`cc_a` (and ``cc_w_``, ``cc_a_``):
  the reference implementation of Corsi & Urbano, "The Treatment of Ties in
  Rank-Biased Overlap" (SIGIR 2024), repository ``julian-urbano/sigir2024-rbo``, file
  ``rbo/Python/rbo.py``, commit ``0338fd9dee6d51b5c51a40cb72c9fc73837c3a4a`` (MIT
  licence, notice below). Transcribed verbatim, from ``def flatten`` to the end of
  the file, with one change: ``np.in1d`` (removed in NumPy 2.4) is ``np.isin``, which
  it is an alias of. Its own test data, ``rbo/test.csv`` of the same commit (written
  by the R implementation, ``rbo/R/test.R``), is ``tests/data/rbo/test.csv.gz``.
* :func:`from_string`: rewritten, not transcribed. It builds what the reference's
  ``from_string`` builds (a list of item names, a tie group as a ``set``) but skips
  its check of the text by regular expression and splits on single blanks (the
  test file's form); the reference's ``to_string`` and ``extract_ranking`` are left
  out.
* :func:`tau_ap`: ircor's ``tauAP`` (R package by Julián Urbano, repository
  ``julian-urbano/ircor``, file ``R/tauAP.R``), rewritten in Python from the R
  function (the same double loop over pairs; ``check()``'s input checks reduced to
  refusing ties). Read at commit ``b76535899f2fc2dce59564b56e1f69fd5d20cc85``
  (2019-12-10, the repository's latest). The function's body has not changed since
  the commit that added it, ``095b1dfe16a97617f93cee0c379abc25ac7b9657``
  (2017-08-15): the later commits to the file (``83ddae0``, ``97be8ae``) change its
  documentation only. The values of ircor's tests used in the cross-checks are in
  ``tests/testthat/helper_data.R`` and ``test_tauAP.R``, unchanged since
  ``6335f56b9a0a15396b4fb5102db3959efee3519c``.

Copyright 2024 Julián Urbano <urbano.julian@gmail.com> (rbo.py), MIT LICENSE:
Permission is hereby granted, free of charge, to any person obtaining a copy of this
software and associated documentation files (the "Software"), to deal in the Software
without restriction, including without limitation the rights to use, copy, modify,
merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
permit persons to whom the Software is furnished to do so, subject to the following
conditions: The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software. THE SOFTWARE IS PROVIDED "AS IS",
WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN
NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR
IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
"""
# ruff: noqa
# mypy: ignore-errors

import numpy as np


def from_string(s):
    """A ranking from the reference's text form ``"a (b c) d"`` (tie groups in
    parentheses): a list of item names, each tie group a ``set`` (as rbo.py's
    ``from_string`` builds it; the order within a group changes no value)."""
    out, group = [], None
    for token in s.split():
        if token.startswith("("):
            group = [token[1:]]
        elif token.endswith(")"):
            group.append(token[:-1])
            out.append(set(group))
            group = None
        elif group is not None:
            group.append(token)
        else:
            out.append(token)
    return out


def tau_ap(x, y):
    """ircor's ``tauAP(x, y)`` (decreasing scores; no ties allowed)."""
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if len(set(x)) != len(x) or len(set(y)) != len(y):
        raise ValueError("ties")
    n = len(x)
    ry = np.argsort(np.argsort(-y)) + 1  # rank(-y)
    numerator = 0.0
    for i in range(n - 1):
        for j in range(i + 1, n):
            sx = np.sign(-x[i] + x[j])
            sy = np.sign(-y[i] + y[j])
            if sx == sy:
                numerator += 1 / (max(ry[i], ry[j]) - 1)
    return 2 * numerator / (n - 1) - 1


# RBO ##############################################################################################

def flatten(x, y = None):
  """
  Flatten rankings (with possible ties), returning:
    - `id`: flattened ranking.
    - `t`: top ranks.
    - `b`: bottom ranks.
  If both `x` and `y` are given, it returns a tuple identifying the Longer and Shorter rankings.
  """
  if y is not None:
    x = flatten(x)
    y = flatten(y)

    if len(x['id']) >= len(y['id']):
      return (y, x)
    else:
      return (x, y)
  else:
    ids = []
    t = []
    b = []

    r = -1  # last rank
    index = 0
    for g in x:
      if isinstance(g, str):
        ids.append(g)
        t.append(r+1)
        b.append(r+1)
        r += 1
      else:
        for gg in g:
          ids.append(gg)
          t.append(r+1)
          b.append(r+len(g))
        r += len(g)
        
  return {'id': np.array(ids), 't': np.array(t), 'b': np.array(b)}

def cc_w(S, L):
  """
  Compute w-variant item contributions of the flattened rankings S and L. Also returns the set
  `omega` with all items, used to index the rows of the contribution matrices.
  """
  omega = np.concatenate((S['id'], L['id'][~np.isin(L['id'], S['id'])])) # union of domains, keeping order
  return (cc_w_(S, omega, len(L['id'])), cc_w_(L, omega, len(L['id'])), omega)
def cc_w_(f, omega, max_d):   
  m = np.zeros((len(omega), max_d))
  for i in range(len(f['id'])):
    row = np.where(omega == f['id'][i])
    cols = np.arange(f['t'][i], max_d)
    m[row, cols] = 1
  return m

def cc_a(S, L):
  """
  Compute a/b-variant item contributions of the flattened rankings S and L. Also returns the set
  `omega` with all items, used to index the rows of the contribution matrices.
  """
  omega = np.concatenate((S['id'], L['id'][~np.isin(L['id'], S['id'])])) # union of domains, keeping order
  return (cc_a_(S, omega, len(L['id'])), cc_a_(L, omega, len(L['id'])), omega)
def cc_a_(f, omega, max_d):
  m = np.zeros((len(omega), max_d))
  for i in range(len(f['id'])):
    row = np.where(omega == f['id'][i])
    cols = np.arange(f['b'][i], max_d)
    m[row, cols] = 1
    cols = np.arange(f['t'][i], f['b'][i])
    m[row, cols] = np.arange(1, f['b'][i]-f['t'][i]+1) / (f['b'][i]-f['t'][i]+1)
  return m

def rbo(x, y, p, ties = 'a', score = ('ext', 'min', 'max', 'res')):
  """
  Compute RBO between `x` and `y`, with persistence parameter `p`, and handling ties when present.
  
  The rankings should be represented as a list of items, where ties are identified by a set, e.g.:
    ["red", {"blue", "green"}, "yellow", "pink"]
  Utility functions `from_string`, `to_string` and `extract_ranking` can ease the process of
  creating valid rankings from string representations or raw ranking data.
  
  Parameters
  ----------
  ties: 'a' (default), 'b' or 'w'
    Please see section 1.1 of the SIGIR 2024 paper to decide which one should be used. In summary:
      - When ties represent equality (i.e. sports rankings), use 'w'.
      - When ties represent uncertainty (i.e. don't know which items go first):
        - Use 'a' to compute the average RBO across permutations of the ties.
        - Use 'b' if the RBO score should be corrected by the information lost due to ties.
        
  score: tuple with any of 'ext', 'min', 'max' and 'res' (all by default)
    - 'ext': extrapolate the agreement in the seen part to the unseen part.
    - 'min': lower bound by assuming no additional overlap in the unseen part.
    - 'max': upper bound by assuming maximum overlap in the unseen part.
    - 'res': size of the residual, i.e. 'max'-'min'.
  """
  if not (0 < p < 1):
    raise ValueError("'p' must be between 0 and 1.")
  if not ties in ('w', 'a', 'b'):
    raise ValueError("'ties' must be one of 'w', 'a' or 'b'.")
  if not np.all(np.isin(score, ('ext', 'min', 'max', 'res'))):
    raise ValueError("'score' must be one or more of 'ext', 'min', 'max' or 'res'.")
  
  # Flat representations
  S, L = flatten(x, y)
  s = len(S['id'])
  l = len(L['id'])
  
  # If there are no ties, use w-variant for efficiency
  if(np.all(S['t']==S['b']) and np.all(L['t']==L['b'])):
    ties = 'w'
    
  # Calculate individual item contributions
  if ties == 'w':
    cS, cL, omega = cc_w(S, L)
  else:
    cS, cL, omega = cc_a(S, L)
  
  # First section: 1 to s
  d = np.arange(0, s)
  X1 = np.sum(cS[:, d] * cL[:, d], axis=0)
  if 'w' in ties:
    A1 = 2 * X1 / (np.sum(cS[:, d], axis=0) + np.sum(cL[:, d], axis=0))
  elif 'a' in ties:
    A1 = X1 / (d+1)
  else:
    A1 = X1 / np.sqrt(np.sum(cS[:, d] ** 2, axis=0)) / np.sqrt(np.sum(cL[:, d] ** 2, axis=0))

  # Second section: s+1 to l
  d = np.arange(s, l)
  X2_seen = np.sum(cS[:, d] * cL[:, d], axis=0)
  
  if 'min' in score or 'res' in score:
    X2_min = X2_seen
    if 'w' in ties:
      A2_min = 2 * X2_min / (d+1 + np.sum(cL[:, d], axis=0))
    elif 'a' in ties:
      A2_min = X2_min / (d+1)
    else:
      A2_min = X2_min / np.sqrt(d+1) / np.sqrt(np.sum(cL[:, d] ** 2, axis=0))

  if 'max' in score or 'res' in score:
    LdS = L['id'][~np.isin(L['id'], S['id'])] # uniques in L, keeping order
    cL_unseen_max = cL[np.isin(omega, LdS[d-s]),:][:,d]
    cL_unseen_max[np.tril_indices_from(cL_unseen_max, k=-1)] = np.nan
    X2_unseen_max = np.nansum(cL_unseen_max, axis=0)
    X2_max = X2_seen + X2_unseen_max
    if 'w' in ties:
      A2_max = 2 * X2_max / (d+1 + np.sum(cL[:, d], axis=0))
    elif 'a' in ties:
      A2_max = X2_max / (d+1)
    else:
      A2_max = X2_max / np.sqrt(d+1) / np.sqrt(np.sum(cL[:, d] ** 2, axis=0))
     
  if 'ext' in score:
    LdS = L['id'][~np.isin(L['id'], S['id'])] # uniques in L, keeping order
    cL_unseen = cL[np.isin(omega, LdS),:][:,d]
    cL_unseen[cL_unseen == 0] = np.nan
    cL_unseen = np.nanmean(cL_unseen, axis=0)
    X2_unseen_ext = (d-s+1) * A1[s-1] * cL_unseen

    X2_ext = X2_seen + X2_unseen_ext
    if 'w' in ties:
      A2_ext = 2 * X2_ext / (d+1 + np.sum(cL[:, d], axis=0))
    elif 'a' in ties:
      A2_ext = X2_ext / (d+1)
    else:
      A2_ext = X2_ext / np.sqrt(d+1) / np.sqrt(np.sum(cL[:, d] ** 2, axis=0))

  # Third section: l+1 to inf
  X_seen = np.concatenate([X1, X2_seen])
  Xl = X_seen[l - 1]  # X_l
  if 'min' in score or 'res' in score:
    d = np.arange(1, l + 1)
    sec3_min = Xl * (np.log(1 / (1 - p)) - np.sum(p ** np.array(d) / np.array(d)))
  if 'max' in score or 'res' in score:
    f = l + s - Xl
    d = np.arange(l + 1, f + 1)
    sec3_max = np.sum((2 * np.array(d) - l - s + Xl) / np.array(d) * p ** np.array(d)) + p ** (f + 1) / (1 - p)
  if 'ext' in score:
    sec3_ext = (Xl + (l - s) * A1[s - 1]) / l * p ** (l + 1) / (1 - p)

  # All sections
  d = np.arange(1, l + 1)
  if 'min' in score or 'res' in score:
    rbo_min = (1 - p) / p * (np.sum(np.concatenate([A1, A2_min]) * p ** np.array(d)) + sec3_min)
  if 'max' in score or 'res' in score:
    rbo_max = (1 - p) / p * (np.sum(np.concatenate([A1, A2_max]) * p ** np.array(d)) + sec3_max)
  if 'ext' in score:
    rbo_ext = (1 - p) / p * (np.sum(np.concatenate([A1, A2_ext]) * p ** np.array(d)) + sec3_ext)
  
  # Output
  r = {}
  if 'ext' in score:
    r['ext'] = rbo_ext
  if 'min' in score:
    r['min'] = rbo_min
  if 'max' in score:
    r['max'] = rbo_max
  if 'res' in score:
    r['res'] = rbo_max - rbo_min
  
  return r
