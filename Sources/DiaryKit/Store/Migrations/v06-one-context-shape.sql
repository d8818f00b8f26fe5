-- The context column takes the shape entry records have (weather nested), so one
-- coder reads and writes it everywhere; rows written flat by v1–v5 are rewritten.
UPDATE entry SET context = json_object(
    'place', json_extract(context, '$.place'),
    'latitude', json_extract(context, '$.latitude'),
    'longitude', json_extract(context, '$.longitude'),
    'weather', CASE WHEN json_extract(context, '$.weather_description') IS NULL
                     AND json_extract(context, '$.temperature_c') IS NULL THEN NULL
                ELSE json_object('description', json_extract(context, '$.weather_description'),
                                 'temperature_c', json_extract(context, '$.temperature_c')) END)
WHERE context IS NOT NULL AND json_valid(context) AND json_type(context, '$.weather') IS NULL;
