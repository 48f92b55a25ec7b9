# an HMAT entry naming a cell that does not exist: one warning, the figures dropped, distances assumed
#setup sed "s/<latency initiator='0' target='1' type='read'/<latency initiator='5' target='1' type='read'/" tests/data/caps/vircaps-x86_64-hmat.xml > "$VN_CASE_TMP/caps.xml"
topology --capabilities "$VN_CASE_TMP/caps.xml"
